import type { ModuleManifest } from '../../platform/manifest';
import { scoringPersonalData } from './personal-data';
import { handleSignalMessages, SIGNALS_KIND, signalsRecorded } from './recompute';
import { RESCORE_KIND, rescorePage } from './rescore';
import { scoringRoutes } from './routes';
import { recordSignal } from './store';
import { scoringSweep } from './sweep';

/** Lead scoring: signals recorded in the batches they happen in, scored through the queue, decayed by its sweep. */
export const manifest: ModuleManifest = {
  name: 'scoring',
  routes: [scoringRoutes],
  sweeps: { 'lead-scoring': scoringSweep },
  queueTasks: [
    { kind: SIGNALS_KIND, runBatch: handleSignalMessages },
    { kind: RESCORE_KIND, run: rescorePage },
  ],
  signals: { record: recordSignal, recorded: signalsRecorded },
  personalData: scoringPersonalData,
};
