import type { OnCallFigures } from './scenarios/on-call';
import type { AppHomeFigures } from './scenarios/app-home';
import type { ApprovalClicksFigures } from './scenarios/approval-clicks';
import type { ClosedLoopFigures } from './scenarios/closed-loop';
import type { HostileTrafficFigures } from './scenarios/hostile-traffic';
import type { SlowClientFigures } from './scenarios/slow-client';
import type { CloudClientFigures } from './scenarios/cloud-client';
import type { ExportsFigures } from './scenarios/exports';
import type { FollowFigures } from './scenarios/follow';
import type { LocalModeFigures } from './scenarios/local-mode';
import type { StartupFigures, SustainedFigures } from './scenarios/memory-and-startup';
import type { OpenLoopFigures } from './scenarios/open-loop';
import type { RenderFigures } from './scenarios/render';
import type { SeveralInstancesFigures } from './scenarios/several-instances';
import type { SingleFlightFigures } from './scenarios/single-flight';
import type { StepsFigures } from './scenarios/steps';
import type { UnfurlsFigures } from './scenarios/unfurls';
import type { ServerCardFigures } from './scenarios/server-card';
import type { NamesFigures } from './scenarios/names';
import type { WatchFigures } from './scenarios/watch';
import type { AgentsFigures } from './scenarios/agents';
import type { PanelChangesFigures, PreviewFigures } from './scenarios/firewall';
import type { TargetName } from './launch-targets';

// The shape of bench/results.json: every figure of the table, as numbers.

/** One of the benchmark's targets, read from this run's figures (bench/report.ts checks them). */
export interface TargetCheck {
  target: string;
  figure: string;
  pass: boolean;
}

export interface BenchResults {
  mode: 'full' | 'smoke';
  startedAt: string;
  wallSeconds: number;
  machine: { cpus: number; cpuModel: string; node: string; platform: string; totalMemoryMb: number };
  scenarios: {
    openLoop: OpenLoopFigures;
    closedLoop: { connections: number; seconds: number; targets: Record<TargetName, ClosedLoopFigures>; oursOverMinimal: number };
    singleFlight: SingleFlightFigures;
    cloudClient: CloudClientFigures;
    render: RenderFigures;
    memoryAndStartup: StartupFigures & {
      botRssAfterStartMb: number;
      peakRssOpenLoopMb: number;
      peakRssMb: number;
      sustained: SustainedFigures;
    };
    localMode: LocalModeFigures;
    severalInstances: SeveralInstancesFigures;
    hostileTraffic: HostileTrafficFigures;
    slowClient: SlowClientFigures;
    unfurls: UnfurlsFigures;
    serverCard: ServerCardFigures;
    names: NamesFigures;
    steps: StepsFigures;
    appHome: AppHomeFigures;
    approvalClicks: ApprovalClicksFigures;
    exports: ExportsFigures;
    follow: FollowFigures;
    onCall: OnCallFigures;
    watch: WatchFigures;
    agents: AgentsFigures;
    firewallPreview: PreviewFigures;
    panelChanges: PanelChangesFigures;
  };
  targets: TargetCheck[];
}
