import { identifier, isoTimestamp, seededRandom, type Random } from './random';
import type { SandboxAutoscalingRule, SandboxBackup, SandboxDisk, SandboxFirewallRule, SandboxSeed, SandboxServer } from './types';

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

/** 42: a public web server behind a typical host firewall. */
function webServer(random: Random): SandboxServer {
  const nic = 3;
  const r = onInterface(random, nic);
  return {
    id: 42,
    label: 'web-1.prod',
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
function bigServer(random: Random): SandboxServer {
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
function databaseServer(random: Random): SandboxServer {
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
function gatewayServer(random: Random): SandboxServer {
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

type BackupInput = Pick<SandboxBackup, 'id' | 'target_id' | 'disk_id' | 'backup_size'> &
  Partial<Pick<SandboxBackup, 'built' | 'marked_for_delete' | 'backup_type' | 'initiated' | 'note' | 'min_disk_size' | 'min_memory_size'>>;

function backup(random: Random, b: BackupInput, minutes: number): SandboxBackup {
  const built = b.built ?? true;
  return {
    id: b.id,
    identifier: identifier(random),
    user_id: 7,
    target_id: b.target_id,
    target_type: 'VirtualMachine',
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
 * The default state of the sandbox.
 *
 * | id | what it exercises |
 * |---|---|
 * | VS 42 | web server: 8 rules, ACCEPT/DROP, TCP/UDP, ranged and listed ports, "" and null address, a description with `<` and `&`; |
 * |       | memory up/down and cpu up configured, 3 placeholders |
 * | VS 43 | no firewall rules; six autoscaling placeholders |
 * | VS 44 | exactly one firewall rule; six placeholders |
 * | VS 45 | 300 rules over two interfaces (positions 1..150 each) |
 * | VS 46 | database server, 5 rules, all six autoscaling slots configured with up_to |
 * | VS 77 | API gateway for the port question: 13 rules on two interfaces using every port and address form, disabled rules, one unreadable port |
 * | backup 9, 10, 11 | restorable (targets 42, 44, 46) |
 * | backup 12 | marked for delete: restore answers 403 |
 * | backup 13 | not built yet: restore answers 403 |
 */
export function defaultSeed(): SandboxSeed {
  const random = seededRandom(0x5eed42);
  const servers: SandboxServer[] = [
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
  ];
  const day = 24 * 60;
  const backups: SandboxBackup[] = [
    backup(random, { id: 9, target_id: 42, disk_id: 101, backup_size: 5_242_880, note: 'nightly' }, 70 * day + 120),
    backup(random, { id: 10, target_id: 44, disk_id: 105, backup_size: 1_887_437, min_disk_size: 10 }, 70 * day + 125),
    backup(
      random,
      { id: 11, target_id: 46, disk_id: 109, backup_size: 73_400_320, min_disk_size: 200, min_memory_size: 4096, backup_type: 'normal', initiated: 'auto' },
      70 * day + 130,
    ),
    backup(random, { id: 12, target_id: 42, disk_id: 101, backup_size: 5_100_032, marked_for_delete: true, note: 'superseded' }, 60 * day + 120),
    backup(random, { id: 13, target_id: 46, disk_id: 107, backup_size: 0, built: false, min_disk_size: 40 }, 71 * day + 120),
  ];
  servers.push(gatewayServer(seededRandom(0x5eed77)));
  return { servers, backups };
}
