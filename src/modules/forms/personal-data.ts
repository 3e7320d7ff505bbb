import { deleteRows, ownRows, rekeyAll, type PersonalData } from '../../platform/personal-data';
import { formSubmissions } from './schema';

/** Form submissions follow their contact in a merge and go with it on erasure. */
export const formPersonalData: PersonalData = {
  exportKinds: { form_submissions: ownRows(formSubmissions, 'created_at', ['fields']) },
  rekey: (db, w, from, to) => [rekeyAll(db, formSubmissions, w, from, to)],
  erase: (db, w, c) => [deleteRows(db, formSubmissions, w, c)],
};
