import { deleteRows, ownRows, rekeyAll, type PersonalData } from '../../platform/personal-data';
import { contactNotes } from './schema';

/** Notes follow their contact in a merge, are part of its export, and go with it on erasure. */
export const notePersonalData: PersonalData = {
  exportKinds: { notes: ownRows(contactNotes) },
  rekey: (db, w, from, to) => [rekeyAll(db, contactNotes, w, from, to)],
  erase: (db, w, c) => [deleteRows(db, contactNotes, w, c)],
};
