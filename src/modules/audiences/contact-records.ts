import { type ContactRecords } from '../contacts';
import { rekeyStaticAudiences } from './service';

/** A static audience listing the absorbed contact lists the target instead. */
export const audienceContactRecords: ContactRecords = {
  rekey: (db, w, from, to) => [rekeyStaticAudiences(db, w, from, to)],
};
