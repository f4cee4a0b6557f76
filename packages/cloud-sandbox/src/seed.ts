import { identifier, isoTimestamp, seededRandom, type Random } from './random';
import { failureLog } from './transactions';
import type {
  SandboxAutoscalingRule,
  SandboxBackup,
  SandboxDisk,
  SandboxFirewallRule,
  SandboxIpAddress,
  SandboxSeed,
  SandboxServer,
  SandboxTransaction,
  TransactionStatus,
} from './types';

// Fake but realistic data, the same on every run: fixed timestamps, a seeded
// generator for identifiers. Each server exercises something the bot must
// handle (see the table in defaultSeed).

const BASE = Date.parse('2026-01-02T10:00:00Z');
/** A fixed time `minutes` after 2026-01-02T10:00:00+00:00. */
const at = (minutes: number): string => isoTimestamp(new Date(BASE + minutes * 60_000));

type RuleInput = Pick<SandboxFirewallRule, 'id' | 'network_interface_id' | 'position' | 'address' | 'port' | 'protocol' | 'command'> &
  Partial<Pick<SandboxFirewallRule, 'description' | 'enable_logging' | 'enabled'>>;

function rule(random: Random, r: RuleInput, minutes: number): SandboxFirewallRule {
  return {
    id: r.id,
    identifier: identifier(random),
    network_interface_id: r.network_interface_id,
    position: r.position,
    address: r.address,
    port: r.port,
    protocol: r.protocol,
    command: r.command,
    created_at: at(minutes),
    updated_at: at(minutes + 90),
    description: r.description ?? null,
    destination_ip: null,
    enable_logging: r.enable_logging ?? null,
    enabled: r.enabled ?? true,
    firewall_service_id: null,
    source_port: null,
  };
}

/** A rule maker for one network interface. */
function onInterface(random: Random, nic: number) {
  return (r: Omit<RuleInput, 'network_interface_id'>, minutes: number) => rule(random, { ...r, network_interface_id: nic }, minutes);
}

type DiskInput = Pick<SandboxDisk, 'id' | 'virtual_machine_id' | 'disk_vm_number' | 'disk_type' | 'disk_size' | 'label'> &
  Partial<Pick<SandboxDisk, 'primary' | 'is_swap' | 'mount_point' | 'file_system' | 'has_autobackups'>>;

function disk(random: Random, d: DiskInput, minutes: number): SandboxDisk {
  return {
    id: d.id,
    identifier: identifier(random),
    virtual_machine_id: d.virtual_machine_id,
    disk_vm_number: d.disk_vm_number,
    disk_type: d.disk_type,
    disk_size: d.disk_size,
    label: d.label,
    primary: d.primary ?? false,
    is_swap: d.is_swap ?? false,
    mount_point: d.mount_point ?? '',
    file_system: d.file_system ?? (d.is_swap ? null : 'ext4'),
    add_to_linux_fstab: !d.is_swap,
    add_to_freebsd_fstab: false,
    built: true,
    locked: false,
    burst_bw: 0,
    max_bw: 0,
    has_autobackups: d.has_autobackups ?? false,
    iqn: null,
    volume_id: null,
    created_at: at(minutes),
    updated_at: at(minutes + 5),
  };
}

function scaling(
  id: number,
  resource: SandboxAutoscalingRule['resource'],
  scale_type: SandboxAutoscalingRule['scale_type'],
  limit_trigger: number,
  for_minutes: number,
  adjust_units: number,
  up_to: number | null,
  minutes: number,
): SandboxAutoscalingRule {
  return { id, resource, scale_type, limit_trigger, for_minutes, adjust_units, up_to, created_at: at(minutes), updated_at: at(minutes + 60) };
}

/** What each server's builder below decides; the rest of its record comes from its profile (PROFILES). */
type ServerParts = Pick<SandboxServer, 'id' | 'label' | 'firewallRules' | 'autoscaling' | 'disks'>;

interface Profile {
  hostname: string;
  booted: boolean;
  memory: number;
  cpus: number;
  template: readonly [id: number, label: string, os: string, distro: string];
  hypervisorId: number | null;
  enableAutoscale: boolean | null;
  /** Public, then private; a /24 each. */
  addresses: readonly string[];
  changesFail?: boolean;
}

const UBUNTU = [12, 'Ubuntu 22.04 x64', 'linux', 'ubuntu'] as const;
const DEBIAN = [14, 'Debian 12 x64', 'linux', 'debian'] as const;
const ROCKY = [15, 'Rocky Linux 9 x64', 'linux', 'rhel'] as const;
const CENTOS = [9, 'CentOS 7.9 x64', 'linux', 'rhel'] as const;

/** How each server looks beyond its firewall, autoscaling and disks: power, size, template, addresses. */
const PROFILES: Readonly<Record<number, Profile>> = {
  42: {
    hostname: 'web-1.prod.example.com',
    booted: true,
    memory: 4096,
    cpus: 2,
    template: UBUNTU,
    hypervisorId: 3,
    enableAutoscale: true,
    addresses: ['203.0.113.42', '10.20.0.42'],
  },
  43: {
    hostname: 'batch-worker-3.example.com',
    booted: false,
    memory: 8192,
    cpus: 4,
    template: DEBIAN,
    hypervisorId: 4,
    enableAutoscale: false,
    addresses: ['10.20.0.43'],
  },
  44: {
    hostname: 'bastion.example.com',
    booted: true,
    memory: 1024,
    cpus: 1,
    template: UBUNTU,
    hypervisorId: 3,
    enableAutoscale: null,
    addresses: ['192.0.2.44'],
  },
  45: {
    hostname: 'edge-lb-1.example.com',
    booted: true,
    memory: 2048,
    cpus: 2,
    template: ROCKY,
    hypervisorId: 5,
    enableAutoscale: true,
    addresses: ['198.51.100.45', '10.30.0.45'],
  },
  46: {
    hostname: 'db-primary.example.com',
    booted: true,
    memory: 16384,
    cpus: 8,
    template: DEBIAN,
    hypervisorId: 4,
    enableAutoscale: true,
    addresses: ['10.20.0.46'],
  },
  47: {
    hostname: 'web-2.prod.example.com',
    booted: true,
    memory: 4096,
    cpus: 2,
    template: UBUNTU,
    hypervisorId: 5,
    enableAutoscale: false,
    addresses: ['10.20.0.47'],
  },
  48: {
    hostname: 'legacy-app.example.com',
    booted: true,
    memory: 2048,
    cpus: 2,
    template: CENTOS,
    hypervisorId: null,
    enableAutoscale: null,
    addresses: ['203.0.113.48'],
    changesFail: true,
  },
  77: {
    hostname: 'api-gateway.example.com',
    booted: true,
    memory: 4096,
    cpus: 2,
    template: UBUNTU,
    hypervisorId: 3,
    enableAutoscale: false,
    addresses: ['198.51.100.77', '10.77.0.77'],
  },
};

/** A server's whole record: its parts, its profile, and fake credentials (as real records carry real ones). */
function server(random: Random, parts: ServerParts): SandboxServer {
  const profile = PROFILES[parts.id];
  if (profile === undefined) throw new Error(`no profile for seeded server ${parts.id}`);
  const [templateId, templateLabel, os, distro] = profile.template;
  const address = (ip: string, k: number): SandboxIpAddress => {
    const network = ip.replace(/\.\d+$/, '');
    return {
      id: parts.id * 10 + k,
      address: ip,
      netmask: '255.255.255.0',
      gateway: `${network}.1`,
      broadcast: `${network}.255`,
      network_address: `${network}.0`,
      network_id: k + 1,
      disallowed_primary: false,
      free: false,
      created_at: at(k),
      updated_at: at(k + 5),
    };
  };
  return {
    ...parts,
    identifier: identifier(random),
    hostname: profile.hostname,
    booted: profile.booted,
    built: true,
    suspended: false,
    recovery_mode: false,
    state: 'delivered',
    memory: profile.memory,
    cpus: profile.cpus,
    cpu_shares: 100,
    template_id: templateId,
    template_label: templateLabel,
    operating_system: os,
    operating_system_distro: distro,
    hypervisor_id: profile.hypervisorId,
    enable_autoscale: profile.enableAutoscale,
    ip_addresses: profile.addresses.map(address),
    // Made up, and plainly so: what an allow-list must keep out of every message, log and record.
    initial_root_password: `fake-root-pw-${parts.id}-${identifier(random).slice(0, 6)}`,
    remote_access_password: `fake-vnc-pw-${parts.id}-${identifier(random).slice(0, 6)}`,
    service_password: `fake-svc-pw-${parts.id}-${identifier(random).slice(0, 6)}`,
    created_at: at(-30 * 24 * 60),
    updated_at: at(0),
    ...(profile.changesFail ? { changesFail: true } : {}),
  };
}

/** 42: a public web server behind a typical host firewall. */
function webServer(random: Random): ServerParts {
  const nic = 3;
  const r = onInterface(random, nic);
  return {
    id: 42,
    label: 'web-1',
    firewallRules: [
      r(
        {
          id: 12,
          position: 1,
          command: 'ACCEPT',
          protocol: 'TCP',
          port: '22',
          address: '203.0.113.0/24',
          description: 'SSH from the office',
          enable_logging: true,
        },
        0,
      ),
      r({ id: 13, position: 2, command: 'ACCEPT', protocol: 'TCP', port: '80', address: '' }, 1),
      r({ id: 14, position: 3, command: 'ACCEPT', protocol: 'TCP', port: '443', address: null, description: 'Allow web <public> & health checks' }, 2),
      r(
        {
          id: 15,
          position: 4,
          command: 'ACCEPT',
          protocol: 'TCP',
          port: '8000:8100',
          address: '10.20.0.0/16',
          description: 'App ports from the private network',
        },
        3,
      ),
      r({ id: 16, position: 5, command: 'ACCEPT', protocol: 'UDP', port: '53,123', address: '10.20.0.2/32', description: 'DNS and NTP from the resolver' }, 4),
      r({ id: 17, position: 6, command: 'DROP', protocol: 'TCP', port: '3306', address: null, description: 'No MySQL from outside', enable_logging: true }, 5),
      r({ id: 18, position: 7, command: 'ACCEPT', protocol: 'UDP', port: '161', address: '198.51.100.7/32' }, 6),
      r({ id: 19, position: 8, command: 'DROP', protocol: 'TCP', port: '', address: '', description: 'Drop everything else', enable_logging: false }, 7),
    ],
    autoscaling: [
      scaling(1, 'memory', 'up', 90, 5, 512, null, 30),
      scaling(2, 'memory', 'down', 20, 30, 256, null, 31),
      scaling(3, 'cpu', 'up', 80, 10, 1, null, 32),
    ],
    disks: [
      disk(
        random,
        {
          id: 101,
          virtual_machine_id: 42,
          disk_vm_number: 1,
          disk_type: 'SSD',
          disk_size: 20,
          label: 'web-1 root',
          primary: true,
          mount_point: '/',
          has_autobackups: true,
        },
        0,
      ),
      disk(random, { id: 102, virtual_machine_id: 42, disk_vm_number: 2, disk_type: 'SSD', disk_size: 2, label: 'web-1 swap', is_swap: true }, 0),
    ],
  };
}

/**
 * 45: an edge load balancer with 300 rules on two interfaces (positions 1..150
 * each), generated from fixed patterns so every run sees the same list.
 */
function bigServer(random: Random): ServerParts {
  const ports = ['22', '80', '443', '8080', '3000:3999', '53,123', '', '25', '5000:5100', '9100'];
  const addresses = [null, '', '10.0.0.0/8', '192.0.2.0/24', '198.51.100.17/32', '203.0.113.0/24', '172.16.4.0/22', '2001:db8::/32'];
  const rules: SandboxFirewallRule[] = [];
  let id = 1001;
  for (const nic of [8, 9]) {
    for (let position = 1; position <= 150; position++) {
      const last = position === 150;
      const n = id - 1001;
      const port = last ? '' : (ports[n % ports.length] ?? '');
      rules.push(
        rule(
          random,
          {
            id,
            network_interface_id: nic,
            position,
            command: last || n % 7 === 3 ? 'DROP' : 'ACCEPT',
            protocol: port === '53,123' || n % 11 === 5 ? 'UDP' : 'TCP',
            port,
            address: last ? null : (addresses[n % addresses.length] ?? null),
            description: last ? 'Default deny' : n % 5 === 0 ? `Generated rule ${position} on interface ${nic}` : null,
          },
          60 + n,
        ),
      );
      id++;
    }
  }
  return {
    id: 45,
    label: 'edge-lb-1',
    firewallRules: rules,
    autoscaling: [scaling(4, 'cpu', 'up', 75, 5, 2, null, 40)],
    disks: [
      disk(
        random,
        { id: 106, virtual_machine_id: 45, disk_vm_number: 1, disk_type: 'SSD', disk_size: 10, label: 'edge-lb-1 root', primary: true, mount_point: '/' },
        0,
      ),
    ],
  };
}

/** 46: a PostgreSQL primary; every autoscaling slot configured, each capped by up_to. */
function databaseServer(random: Random): ServerParts {
  const nic = 10;
  const r = onInterface(random, nic);
  return {
    id: 46,
    label: 'db-primary',
    firewallRules: [
      r({ id: 21, position: 1, command: 'ACCEPT', protocol: 'TCP', port: '22', address: '203.0.113.0/24', description: 'SSH from the office' }, 10),
      r({ id: 22, position: 2, command: 'ACCEPT', protocol: 'TCP', port: '5432', address: '10.20.0.0/16', description: 'PostgreSQL from the app network' }, 11),
      r({ id: 23, position: 3, command: 'ACCEPT', protocol: 'TCP', port: '9187', address: '198.51.100.7/32', description: 'Metrics exporter' }, 12),
      r({ id: 24, position: 4, command: 'DROP', protocol: 'TCP', port: '', address: null, enable_logging: true }, 13),
      r({ id: 25, position: 5, command: 'DROP', protocol: 'UDP', port: '', address: null }, 14),
    ],
    autoscaling: [
      scaling(5, 'memory', 'up', 85, 10, 1024, 16384, 50),
      scaling(6, 'memory', 'down', 30, 60, 1024, 4096, 51),
      scaling(7, 'cpu', 'up', 70, 15, 2, 8, 52),
      scaling(8, 'cpu', 'down', 15, 60, 1, 2, 53),
      scaling(9, 'disk', 'up', 80, 30, 50, 500, 54),
      scaling(10, 'disk', 'down', 10, 1440, 10, 100, 55),
    ],
    disks: [
      disk(
        random,
        { id: 107, virtual_machine_id: 46, disk_vm_number: 1, disk_type: 'SSD', disk_size: 40, label: 'db-primary root', primary: true, mount_point: '/' },
        0,
      ),
      disk(random, { id: 108, virtual_machine_id: 46, disk_vm_number: 2, disk_type: 'SSD', disk_size: 4, label: 'db-primary swap', is_swap: true }, 0),
      disk(
        random,
        {
          id: 109,
          virtual_machine_id: 46,
          disk_vm_number: 3,
          disk_type: 'SSD',
          disk_size: 200,
          label: 'pgdata',
          mount_point: '/var/lib/postgresql',
          has_autobackups: true,
        },
        0,
      ),
    ],
  };
}

/**
 * 77: an API gateway whose rules use every form the port question reads
 * (`/vs firewall 77 443`): port lists, both range syntaxes, IPv4 and IPv6
 * CIDR blocks and address ranges, empty and null port and address, disabled
 * rules, DROP, UDP, and one port written in a form nobody can read. Its two
 * interfaces disagree about 443 and 8443. It draws its identifiers from its
 * own generator, so the servers above keep theirs.
 */
function gatewayServer(random: Random): ServerParts {
  const pub = onInterface(random, 21);
  const priv = onInterface(random, 22);
  return {
    id: 77,
    label: 'api-gateway',
    firewallRules: [
      pub(
        {
          id: 7701,
          position: 1,
          command: 'ACCEPT',
          protocol: 'TCP',
          port: '22,443,8443',
          address: '203.0.113.0/24',
          description: 'Office: SSH, web and admin',
        },
        80,
      ),
      pub(
        { id: 7702, position: 2, command: 'ACCEPT', protocol: 'TCP', port: '8443', address: '198.51.100.1-198.51.100.20', description: 'Partner admin range' },
        81,
      ),
      pub(
        {
          id: 7703,
          position: 3,
          command: 'DROP',
          protocol: 'TCP',
          port: '8443',
          address: null,
          description: 'Admin port closed to everyone else (off during the migration)',
          enabled: false,
        },
        82,
      ),
      pub({ id: 7704, position: 4, command: 'ACCEPT', protocol: 'TCP', port: '80,443', address: '', description: 'Public web' }, 83),
      pub(
        {
          id: 7705,
          position: 5,
          command: 'ACCEPT',
          protocol: 'TCP',
          port: '1024:1028',
          address: '2001:db8:77::/48',
          description: 'Passive FTP from the IPv6 office',
        },
        84,
      ),
      pub(
        {
          id: 7706,
          position: 6,
          command: 'ACCEPT',
          protocol: 'TCP',
          port: '5000-5010',
          address: '2001:db8:77::10-2001:db8:77::1f',
          description: 'Build agents (IPv6)',
        },
        85,
      ),
      pub({ id: 7707, position: 7, command: 'ACCEPT', protocol: 'UDP', port: '53', address: '10.77.0.0/16', description: 'DNS from the private network' }, 86),
      pub(
        { id: 7708, position: 8, command: 'ACCEPT', protocol: 'TCP', port: '9000;9001', address: '10.77.0.5', description: 'Metrics (port typed by hand)' },
        87,
      ),
      pub({ id: 7709, position: 9, command: 'DROP', protocol: 'TCP', port: '', address: null, description: 'Drop all other TCP', enable_logging: true }, 88),
      pub({ id: 7710, position: 10, command: 'DROP', protocol: 'UDP', port: null, address: '', description: 'Drop all other UDP' }, 89),
      priv(
        { id: 7711, position: 1, command: 'ACCEPT', protocol: 'TCP', port: '', address: '10.77.0.0/16', description: 'Everything from the private network' },
        90,
      ),
      priv(
        {
          id: 7712,
          position: 2,
          command: 'ACCEPT',
          protocol: 'TCP',
          port: '8443',
          address: '',
          description: 'Admin port for everyone (test, off)',
          enabled: false,
        },
        91,
      ),
      priv({ id: 7713, position: 3, command: 'DROP', protocol: 'TCP', port: '', address: '', description: 'Private interface: nothing else' }, 92),
    ],
    autoscaling: [],
    // Disk id 100, below the others: new sandbox disks keep getting 110 onwards.
    disks: [
      disk(
        random,
        { id: 100, virtual_machine_id: 77, disk_vm_number: 1, disk_type: 'SSD', disk_size: 20, label: 'api-gateway root', primary: true, mount_point: '/' },
        0,
      ),
    ],
  };
}

type BackupInput = Pick<SandboxBackup, 'id' | 'target_id' | 'backup_size'> & { disk_id: number } & Partial<
    Pick<SandboxBackup, 'built' | 'marked_for_delete' | 'backup_type' | 'initiated' | 'note' | 'min_disk_size' | 'min_memory_size'>
  >;

/** A normal backup's target is its disk, an incremental one's its server (docs/cloud-api.md, Backups). */
function backup(random: Random, b: BackupInput, minutes: number): SandboxBackup {
  const built = b.built ?? true;
  const incremental = (b.backup_type ?? 'incremental') === 'incremental';
  return {
    id: b.id,
    identifier: identifier(random),
    user_id: 7,
    target_id: incremental ? b.target_id : b.disk_id,
    target_type: incremental ? 'VirtualMachine' : 'Disk',
    template_id: 12,
    backup_server_id: 1,
    backup_size: b.backup_size,
    backup_type: b.backup_type ?? 'incremental',
    initiated: b.initiated ?? 'manual',
    data_store_type: 'lvm',
    operating_system: 'Linux',
    operating_system_distro: 'ubuntu',
    min_disk_size: b.min_disk_size ?? 20,
    min_memory_size: b.min_memory_size ?? 512,
    built,
    built_at: built ? at(minutes + 12) : null,
    locked: false,
    marked_for_delete: b.marked_for_delete ?? false,
    allow_resize_without_reboot: true,
    allowed_hot_migrate: true,
    allowed_swap: true,
    created_at: at(minutes),
    updated_at: at(minutes + 12),
    iqn: null,
    note: b.note ?? null,
    volume_id: null,
    disk_id: b.disk_id,
  };
}

/**
 * The default state of the sandbox (packages/cloud-sandbox/README.md lists it too).
 *
 * | id | what it exercises |
 * |---|---|
 * | VS 42 | on; web server: 8 rules, ACCEPT/DROP, TCP/UDP, ranged and listed ports, "" and null address, a description with |
 * |       | `<` and `&`; memory up/down and cpu up configured, 3 placeholders; backups of both kinds; a past transaction of each outcome |
 * | VS 43 | off; no firewall rules; six autoscaling placeholders |
 * | VS 44 | on; exactly one firewall rule; six placeholders |
 * | VS 45 | on; 300 rules over two interfaces (positions 1..150 each) |
 * | VS 46 | on; database server, 5 rules, all six autoscaling slots configured with up_to; a backup not built |
 * | VS 47 | on, locked: a backup of it is running and never ends |
 * | VS 48 | on; every change to it fails in the cloud, its raw log full of internals (only with `?detailed`) |
 * | VS 77 | on; API gateway for the port question: 13 rules on two interfaces using every port and address form, disabled rules, one unreadable port |
 * | backup 9, 10, 15 | usable: 9 and 10 incremental (targets VS 42, 44), 15 normal (disk 101 of VS 42) |
 * | backup 11, 14 | usable, normal: disk 109 of VS 46; disk 96 of VS 48 (restoring it fails in the cloud) |
 * | backup 12 | marked for deletion: restore answers 403 |
 * | backup 13 | not built yet: restore answers 403 |
 * Every server's record carries fake credentials (`initial_root_password`, `remote_access_password`, `service_password`).
 */
export function defaultSeed(): SandboxSeed {
  const random = seededRandom(0x5eed42);
  const parts: ServerParts[] = [
    webServer(random),
    {
      id: 43,
      label: 'batch-worker-3',
      firewallRules: [],
      autoscaling: [],
      disks: [
        disk(
          random,
          {
            id: 103,
            virtual_machine_id: 43,
            disk_vm_number: 1,
            disk_type: 'HDD',
            disk_size: 50,
            label: 'batch-worker-3 root',
            primary: true,
            mount_point: '/',
          },
          0,
        ),
        disk(random, { id: 104, virtual_machine_id: 43, disk_vm_number: 2, disk_type: 'HDD', disk_size: 4, label: 'batch-worker-3 swap', is_swap: true }, 0),
      ],
    },
    {
      id: 44,
      label: 'bastion',
      firewallRules: [
        rule(
          random,
          {
            id: 20,
            network_interface_id: 4,
            position: 1,
            command: 'ACCEPT',
            protocol: 'TCP',
            port: '22',
            address: '192.0.2.10/32',
            description: 'SSH from the VPN gateway',
          },
          20,
        ),
      ],
      autoscaling: [],
      disks: [
        disk(
          random,
          { id: 105, virtual_machine_id: 44, disk_vm_number: 1, disk_type: 'SSD', disk_size: 10, label: 'bastion root', primary: true, mount_point: '/' },
          0,
        ),
      ],
    },
    bigServer(random),
    databaseServer(random),
    reportingServer(random),
    legacyServer(random),
  ];
  const day = 24 * 60;
  const backups: SandboxBackup[] = [
    backup(random, { id: 9, target_id: 42, disk_id: 101, backup_size: 5_242_880, note: 'nightly' }, 70 * day + 120),
    backup(random, { id: 10, target_id: 44, disk_id: 105, backup_size: 1_887_437, min_disk_size: 10 }, 70 * day + 125),
    backup(
      random,
      { id: 11, target_id: 46, disk_id: 109, backup_size: 73_400_320, min_disk_size: 200, min_memory_size: 4096, backup_type: 'normal', initiated: 'days' },
      70 * day + 130,
    ),
    backup(random, { id: 12, target_id: 42, disk_id: 101, backup_size: 5_100_032, marked_for_delete: true, note: 'superseded' }, 60 * day + 120),
    backup(random, { id: 13, target_id: 46, disk_id: 107, backup_size: 0, built: false, min_disk_size: 40 }, 71 * day + 120),
    backup(random, { id: 14, target_id: 48, disk_id: 96, backup_size: 3_145_728, backup_type: 'normal', initiated: 'weeks' }, 69 * day + 60),
    backup(random, { id: 15, target_id: 42, disk_id: 101, backup_size: 4_980_736, backup_type: 'normal', initiated: 'weeks', note: 'weekly' }, 66 * day + 120),
  ];
  parts.push(gatewayServer(seededRandom(0x5eed77)));
  // Their own generator: the rules' and disks' identifiers stay what they were before servers had records.
  const identities = seededRandom(0x5e7e5);
  const servers = parts.map((p) => server(identities, p));
  return { servers, backups, transactions: history(identities) };
}

/** 47: a second web server (`web` names two: web-1 and web-2), locked by a backup that is running (it never ends: the locked server of every run). */
function reportingServer(random: Random): ServerParts {
  return {
    id: 47,
    label: 'web-2',
    firewallRules: [],
    autoscaling: [],
    disks: [
      disk(
        random,
        { id: 98, virtual_machine_id: 47, disk_vm_number: 1, disk_type: 'SSD', disk_size: 30, label: 'web-2 root', primary: true, mount_point: '/' },
        0,
      ),
    ],
  };
}

/** 48: an old application server on a hypervisor in trouble: every change to it fails in the cloud. */
function legacyServer(random: Random): ServerParts {
  return {
    id: 48,
    label: 'legacy-app',
    firewallRules: [],
    autoscaling: [],
    disks: [
      disk(
        random,
        { id: 96, virtual_machine_id: 48, disk_vm_number: 1, disk_type: 'HDD', disk_size: 20, label: 'legacy-app root', primary: true, mount_point: '/' },
        0,
      ),
      disk(random, { id: 97, virtual_machine_id: 48, disk_vm_number: 2, disk_type: 'HDD', disk_size: 50, label: 'legacy-app data', mount_point: '/srv' }, 0),
    ],
  };
}

type SeededTransaction = Pick<SandboxTransaction, 'id' | 'action' | 'parent_type' | 'parent_id' | 'associated_object_id'> & {
  status: TransactionStatus;
  /** Minutes after the seed's base time when it started; it ran for `minutes` (Infinity: it is still running). */
  startedAt: number;
  minutes: number;
  params?: SandboxTransaction['params'];
  locks?: SandboxTransaction['locks'];
};

/** What already ran, oldest first, and the backup that holds VS 47 locked. */
function history(random: Random): SandboxTransaction[] {
  const day = 24 * 60;
  const seeded: SeededTransaction[] = [
    { id: 1, action: 'take_backup', parent_type: 'Disk', parent_id: 101, associated_object_id: 42, status: 'complete', startedAt: 66 * day + 120, minutes: 12 },
    { id: 2, action: 'take_backup', parent_type: 'Disk', parent_id: 109, associated_object_id: 46, status: 'complete', startedAt: 70 * day + 130, minutes: 12 },
    {
      id: 3,
      action: 'take_incremental_backup',
      parent_type: 'VirtualMachine',
      parent_id: 42,
      associated_object_id: 42,
      status: 'complete',
      startedAt: 70 * day + 120,
      minutes: 12,
    },
    {
      id: 4,
      action: 'resize_disk',
      parent_type: 'Disk',
      parent_id: 107,
      associated_object_id: 46,
      status: 'failed',
      startedAt: 70 * day + 300,
      minutes: 3,
      params: { new_disk_size: 60 },
    },
    {
      id: 5,
      action: 'update_firewall',
      parent_type: 'VirtualMachine',
      parent_id: 42,
      associated_object_id: 42,
      status: 'complete',
      startedAt: 71 * day,
      minutes: 1,
    },
    {
      id: 6,
      action: 'reboot_virtual_machine',
      parent_type: 'VirtualMachine',
      parent_id: 42,
      associated_object_id: 42,
      status: 'cancelled',
      startedAt: 71 * day + 60,
      minutes: 0,
      params: { mode: null },
    },
    {
      id: 7,
      action: 'startup_virtual_machine',
      parent_type: 'VirtualMachine',
      parent_id: 48,
      associated_object_id: 48,
      status: 'failed',
      startedAt: 71 * day + 90,
      minutes: 2,
    },
    {
      id: 8,
      action: 'take_incremental_backup',
      parent_type: 'VirtualMachine',
      parent_id: 47,
      associated_object_id: 47,
      status: 'running',
      startedAt: 72 * day,
      minutes: Infinity,
      locks: { servers: [47], disks: [98], backups: [] },
    },
  ];
  return seeded.map((t): SandboxTransaction => {
    const startsAt = BASE + t.startedAt * 60_000;
    const running = t.minutes === Infinity;
    return {
      id: t.id,
      identifier: identifier(random),
      action: t.action,
      status: t.status,
      parent_type: t.parent_type,
      parent_id: t.parent_id,
      associated_object_type: 'VirtualMachine',
      associated_object_id: t.associated_object_id,
      dependent_transaction_id: null,
      allowed_cancel: false,
      params: t.params ?? {},
      log_output: t.status === 'failed' ? failureLog(t.action, t.id, t.associated_object_id) : '',
      created_at: at(t.startedAt - 1),
      started_at: t.status === 'cancelled' ? null : at(t.startedAt),
      updated_at: at(t.startedAt + (running ? 0 : t.minutes)),
      startsAt,
      endsAt: startsAt + t.minutes * 60_000,
      outcome: t.status === 'failed' ? 'failed' : 'complete',
      locks: t.locks ?? { servers: [], disks: [], backups: [] },
      effect: { kind: 'none' },
    };
  });
}
