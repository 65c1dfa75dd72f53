import { describeKillPoints } from "../support/kill-points.ts";

// A worker killed when every file recorded, the backup not yet marked completed.
describeKillPoints([2]);
