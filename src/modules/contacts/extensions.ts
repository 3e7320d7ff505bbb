import type { PersonalData, TagsLinked } from '../../platform/personal-data';

export type ContactExtensions = { records: readonly PersonalData[]; tagsLinked: readonly TagsLinked[] };

let installed: ContactExtensions = { records: [], tagsLinked: [] };

/** Called by the composition root (src/wiring.ts) with what the manifests declare; nothing else changes it. */
export function installContactExtensions(extensions: ContactExtensions): void {
  installed = extensions;
}

/** Every other module's personal data and tag rules, as the composition root installed them. */
export const contactExtensions = (): ContactExtensions => installed;
