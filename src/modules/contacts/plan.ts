import type { Workspace } from '../../platform/workspace';
import { CUSTOM_FIELDS_BOUNDS, jsonBoundsProblem } from '../../platform/json-bounds';
import { SCALAR_NAMES, type ContactWriteInput } from './fields';
import type { LabelKind, LabelMode } from './labels/links';
import type { ContactRow } from './read';
import { ContactErrors } from './errors';

/** Input after normalization: phone in E.164, email trimmed and lower-cased. */
export type NormalizedWrite = Omit<ContactWriteInput, 'phone' | 'email'> & { phone?: string | null; email?: string | null };

export type LabelDiff = { names: Map<string, string>; missingKeys: string[]; resolvedIds: string[] };

/** A write's label changes per kind. */
export type Diffs = Record<LabelKind, LabelDiff>;

export type ChangePlan = {
  /** Column values to write (only the ones that change). */
  set: Record<string, unknown>;
  /** `changed_fields` of contact.updated. */
  changed: string[];
};

const splitName = (name: string | null) => {
  if (name === null) return { first_name: null, last_name: null };
  const words = name.trim().split(/\s+/).filter(Boolean);
  return { first_name: words[0] ?? null, last_name: words.length > 1 ? words.slice(1).join(' ') : null };
};

/**
 * docs/decisions.md name sync: a written `name` wins and is split into first word
 * and rest; otherwise a written first/last name recomputes `name` from the pair.
 */
export function syncNames(input: NormalizedWrite, existing: Partial<ContactRow> | null): Record<string, string | null> {
  const written = input as { name?: string | null; first_name?: string | null; last_name?: string | null };
  if (written.name !== undefined) return { name: written.name, ...splitName(written.name) };
  if (written.first_name === undefined && written.last_name === undefined) return {};
  const first = written.first_name !== undefined ? written.first_name : (existing?.first_name ?? null);
  const last = written.last_name !== undefined ? written.last_name : (existing?.last_name ?? null);
  const joined = [first, last].filter((p): p is string => typeof p === 'string' && p.trim() !== '').join(' ');
  return { first_name: first, last_name: last, name: joined === '' ? null : joined };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * What a write changes on a contact (or the full row of a new one when
 * `existing` is null). `blacklisted` says whether the resulting phone is on the
 * workspace blacklist: a non-`none` block without a match is an import block.
 */
export function planChanges(ws: Workspace, existing: ContactRow | null, input: NormalizedWrite, blacklisted: boolean): ChangePlan {
  const next: Record<string, unknown> = {};
  for (const field of SCALAR_NAMES) {
    if (field === 'name' || field === 'first_name' || field === 'last_name') continue;
    if (field === 'lead_score' && ws.leadScoring) continue; // engine-owned while scoring is on
    const value = input[field];
    if (value !== undefined) next[field] = value;
  }
  Object.assign(next, syncNames(input, existing));
  if (input.phone !== undefined) next.phone = input.phone;
  if (input.email !== undefined) next.email = input.email;

  if (input.block_state !== undefined) {
    const current = existing?.block_state ?? 'none';
    if (current === 'global' && input.block_state !== 'global') throw ContactErrors.globalBlockLocked();
    if (input.block_state !== current) {
      next.block_state = input.block_state;
      next.block_source = input.block_state === 'none' ? null : blacklisted ? 'blacklist' : 'import';
    }
  }

  const set: Record<string, unknown> = {};
  const changed: string[] = [];
  for (const [k, v] of Object.entries(next)) {
    if (existing && same(existing[k], v)) continue;
    set[k] = v;
    if (k !== 'block_source') changed.push(k);
  }

  if (input.custom_fields) {
    const current: Record<string, unknown> = existing ? JSON.parse(existing.custom_fields || '{}') : {};
    // Null prototype: keys such as `__proto__` or `constructor` are plain keys here.
    const merged: Record<string, unknown> = Object.assign(Object.create(null), current);
    for (const [key, value] of Object.entries(input.custom_fields)) {
      if (value === null) {
        if (Object.hasOwn(merged, key)) {
          delete merged[key];
          changed.push(`custom_fields.${key}`);
        }
      } else if (!same(merged[key], value)) {
        merged[key] = value;
        changed.push(`custom_fields.${key}`);
      }
    }
    if (!same(merged, current)) {
      const problem = jsonBoundsProblem(merged, CUSTOM_FIELDS_BOUNDS);
      if (problem) throw ContactErrors.mergedFieldsTooLarge({ problem });
      // Back to an ordinary object (the database layer expects one); JSON keeps every key an own key.
      set.custom_fields = JSON.parse(JSON.stringify(merged));
    }
  }
  return { set, changed };
}

/** Whether linking `diff` changes a current id set (`add` keeps the rest, `replace` swaps it). */
export function labelsChange(current: string[], diff: LabelDiff, mode: LabelMode): boolean {
  const have = new Set(current);
  if (mode === 'remove') return diff.resolvedIds.some((id) => have.has(id));
  if (diff.missingKeys.length) return true;
  if (diff.resolvedIds.some((id) => !have.has(id))) return true;
  return mode === 'replace' && new Set(diff.resolvedIds).size !== have.size;
}
