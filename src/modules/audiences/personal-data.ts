import type { PersonalData } from '../../platform/personal-data';
import { rekeyStaticAudiences } from './service';

/** A static audience listing the absorbed contact lists the target instead. */
export const audiencePersonalData: PersonalData = {
  rekey: (db, w, from, to) => [rekeyStaticAudiences(db, w, from, to)],
};
