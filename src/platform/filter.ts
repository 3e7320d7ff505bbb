import { sql, type SQL } from 'drizzle-orm';
import { SharedErrors } from './shared-errors';
import { prefixRanges } from './d1/prefix-ranges';
import { isUuid } from './validation';

/**
 * The shared filter grammar (the README "Filter grammar", docs/decisions.md
 * "Contact filter grammar"), compiled to one parameterized SQL condition.
 *
 * No value is ever spliced into SQL text. A small tree (at most `INLINE_MAX`
 * values) binds each value as a parameter, so the planner sees it. A larger one
 * travels in ONE bound parameter: a JSON array that `filterWith` unpacks once
 * into the columns `v0`, `v1`, ... of the one-row CTE `fp`, which the query
 * joins; conditions read those columns. A 100-node tree therefore binds one
 * parameter, never approaching D1's 100-parameter limit, and the JSON is parsed
 * once per query rather than once per row.
 */

export type FieldKind = 'text' | 'uuid' | 'date' | 'timestamp' | 'enum' | 'number' | 'integer' | 'boolean' | 'json';
/**
 * `truth`: for a boolean field, an index-friendly condition true exactly where `expr` is (it may be NULL where `expr` is false).
 * `index`: an index of the catalog's table on (workspace_id, the field's column, ..., id): `eq` and `starts_with` on the
 * field are then also row sets read from it (see `IndexedRows`).
 */
export type FieldDef = { kind: FieldKind; expr: SQL; values?: readonly string[]; truth?: SQL; index?: string };

/**
 * Custom fields kept as rows as well (one per record and key): a condition on
 * one becomes membership in a set the rows' index finds. `set` lists, as `id`,
 * the workspace's records whose `key` has a value meeting `condition` (written
 * on `value`); `member` is the condition "the row is in that set"; `probe` the
 * same tested for one row through its own custom rows.
 */
export type CustomValues = {
  set: (key: SQL, workspace: SQL, condition: SQL) => SQL;
  member: (set: SQL) => SQL;
  probe: (key: SQL, condition: SQL) => SQL;
};

/**
 * A condition true exactly for the rows `set` lists (one `id` column,
 * distinct, scoped to the workspace); `probe` tests one row for membership
 * through that row's own index entries; `gauge` yields at least as many rows
 * as `set` for a union (duplicates kept, so a LIMIT stops it early), to judge
 * whether the set is large; `ranged` when `set` reads one index range (no
 * grouping, no compound), so counting it costs about what reading a stored count does;
 * `own` when `set` reads an index of the table itself (a column's range, `IndexedRows`): a page
 * then walks the sort's index as for any tree, since walking tests a column as cheaply as the set's
 * members are listed; `index` when that is one range of one index (an `eq`), which a page may walk;
 * `wide` when it may list much of the workspace (a column's range: `lead_score >= 0`), so an `and`
 * with it is not intersected from sets; `merged` when `set` merges sets (an intersection, a union),
 * which sorts all their members; `alternatives` when it is an `or` of sets, in the tree's order
 * (nested `or`s flattened), which a count and a page can read one by one.
 */
export type RowSet = {
  set: SQL;
  probe: SQL;
  gauge: SQL;
  ranged?: boolean;
  custom?: CustomCondition;
  own?: boolean;
  index?: string;
  wide?: boolean;
  merged?: boolean;
  alternatives?: RowSet[];
};

/**
 * Row sets read from the table's own indexes: `range` lists, as `id`, the
 * workspace's rows meeting `condition` through `index` (named, so the count
 * walks that index's range, which a planner without statistics would not
 * always pick; the index ends with the id, so it alone answers).
 */
export type IndexedRows = { range: (index: string, workspace: SQL, condition: SQL) => SQL };

/**
 * A condition on one custom field's rows: `holds` is written on `v.value`; `equals` when it is
 * `v.value` being one of these values (alternatives of one key then read one index seek each).
 */
type CustomCondition = { key: string; keyRef: SQL; workspace: SQL; holds: SQL; equals?: SQL[] };

export type FilterCatalog = {
  fields: Record<string, FieldDef>;
  /** Resolves `custom_fields.<key>`; absent when the resource has no custom fields. */
  customField?: (keyRef: SQL) => SQL;
  customValues?: CustomValues;
  indexedRows?: IndexedRows;
  /** Resource-specific top-level operators such as `$jsonb_contains`. */
  operators?: Record<string, (value: unknown, b: FilterBuilder) => SQL>;
};

export const MAX_NODES = 100;
export const MAX_ARRAY_ITEMS = 200;
/** SQLite (as D1 builds it) refuses expression trees deeper than 100; nesting is capped well below. */
const MAX_DEPTH = 20;

/** Joins conditions as a balanced tree: 100 ANDed conditions nest 7 deep, not 100. */
function balanced(parts: SQL[], op: 'AND' | 'OR'): SQL {
  if (parts.length === 1) return parts[0];
  const mid = Math.ceil(parts.length / 2);
  return sql`(${balanced(parts.slice(0, mid), op)} ${sql.raw(op)} ${balanced(parts.slice(mid), op)})`;
}

/** D1 runs a compound SELECT of at most this many SELECTs. */
const COMPOUND_MAX = 5;

/**
 * One-column SELECTs joined by `op` (UNION, UNION ALL, INTERSECT): more than
 * COMPOUND_MAX are grouped into nested compounds, which select the same rows
 * since each of these operators is associative.
 */
function compound(selects: SQL[], op: 'UNION' | 'UNION ALL' | 'INTERSECT'): SQL {
  if (selects.length <= COMPOUND_MAX) return sql.join(selects, sql.raw(` ${op} `));
  const size = Math.ceil(selects.length / COMPOUND_MAX);
  const groups: SQL[] = [];
  for (let i = 0; i < selects.length; i += size) {
    const group = selects.slice(i, i + size);
    groups.push(group.length === 1 ? group[0] : sql`SELECT * FROM (${compound(group, op)})`);
  }
  return compound(groups, op);
}

const OPS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'is_null',
  'is_not_null',
] as const;
type Op = (typeof OPS)[number];
const SUBSTRING_OPS: readonly Op[] = ['contains', 'not_contains', 'starts_with', 'ends_with'];
const ORDER_OPS: readonly Op[] = ['gt', 'gte', 'lt', 'lte'];
const ORDERED_KINDS: readonly FieldKind[] = ['text', 'date', 'timestamp', 'number', 'integer', 'json'];

const COMPARISONS = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const NUMERIC = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const CUSTOM_KEY = /^[A-Za-z0-9_\-. ]{1,100}$/;
/**
 * Operators true only where the field has a value: on a custom field (outside
 * any `not`, where NULL and false select the same rows) they become set
 * membership. The others are also true where the key is absent.
 */
const VALUE_OPS: readonly Op[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'starts_with', 'ends_with', 'is_not_null'];

export const invalidFilter = (what: string) => SharedErrors.invalidFilter({ problem: what });

/**
 * Field and operator names come from the client: only the table's own entries
 * count, never what every object inherits (`constructor`, `toString`, ...).
 */
const ownEntry = <T>(table: Record<string, T>, name: string): T | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);

const shown = (value: unknown) => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
};

type Field = FieldDef & { name: string; customKey?: string };

/**
 * Trees with at most this many values bind each value as its own parameter:
 * the planner then sees the values and can pick an index for them (a sort
 * index with `lifecycle_stage = ?`, a range probe). Two such filters in one
 * statement (an audience and a campaign's own filters) stay far below D1's
 * 100 parameters; larger trees travel packed in `fp`.
 */
export const INLINE_MAX = 16;

export class FilterBuilder {
  readonly values: unknown[] = [];
  private nodes = 0;
  /** How many `not` nodes enclose the node being compiled. */
  private negations = 0;
  /** Set while compiling a subquery that must not read the outer row (see `ref`). */
  private uncorrelated = false;
  /** Conditions that are row sets: a tree made only of them is counted from its set, without reading the records. */
  private readonly sets = new WeakMap<SQL, RowSet>();

  /**
   * `workspaceId`: values of `workspace_id` conditions are replaced with it (any `workspace_id` inside is replaced).
   * `inline`: values are bound one parameter each instead of packed in `fp`.
   */
  constructor(
    private readonly catalog: FilterCatalog,
    private readonly workspaceId?: string,
    private readonly inline = false,
  ) {}

  countNode(): void {
    this.nodes += 1;
    if (this.nodes > MAX_NODES) throw invalidFilter(`too many conditions (at most ${MAX_NODES} nodes)`);
  }

  /** Registers a value: its own parameter (booleans as 1/0, as `fp` unpacks them), or its column of `fp`. */
  private next(value: unknown): { param: SQL; column: string } {
    this.values.push(value);
    return { param: sql`${typeof value === 'boolean' ? Number(value) : value}`, column: `v${this.values.length - 1}` };
  }

  /** A reference to one value. */
  ref(value: unknown): SQL {
    if (this.uncorrelated) return this.scalarRef(value);
    const { param, column } = this.next(value);
    return this.inline ? param : sql.raw(`fp.${column}`);
  }

  /** Marks `condition` as the row set `rows`; returns `condition`. */
  withSet(condition: SQL, rows: RowSet): SQL {
    this.sets.set(condition, rows);
    return condition;
  }

  /** The row set a compiled condition is, if it is one. */
  rowSet(condition: SQL | undefined): RowSet | undefined {
    return condition && this.sets.get(condition);
  }

  /** The workspace the filter runs in, as a reference usable inside a subquery. */
  workspaceRef(): SQL | undefined {
    return this.workspaceId === undefined ? undefined : this.scalarRef(this.workspaceId);
  }

  /** Joins conditions; when every one is a row set, the result is their intersection or union. */
  combine(parts: SQL[], op: 'AND' | 'OR'): SQL {
    const joined = balanced(parts, op);
    const sets = parts.map((part) => this.sets.get(part));
    if (parts.length === 1 || sets.some((rows) => !rows) || (op === 'AND' && sets.some((rows) => rows!.wide))) return joined;
    // Alternatives for one custom field are one range of its rows: a record holds one value per key, so no duplicates.
    const custom = sets.map((rows) => rows!.custom);
    if (op === 'OR' && custom.every((c) => c && c.key === custom[0]!.key)) {
      const [{ key, keyRef, workspace }] = custom as CustomCondition[];
      // An OR of packed values (`(SELECT v1 FROM fp)`) is not turned into IN by SQLite: it would walk every value of the key.
      const equals = custom.every((c) => c!.equals) ? custom.flatMap((c) => c!.equals!) : undefined;
      const holds = equals
        ? sql`(v.value IN (${sql.join(equals, sql`, `)}))`
        : balanced(
            custom.map((c) => c!.holds),
            'OR',
          );
      return this.withSet(joined, this.customRows({ key, keyRef, workspace, holds, equals }));
    }
    const set = compound(
      sets.map((rows) => sql`SELECT id FROM (${rows!.set})`),
      op === 'AND' ? 'INTERSECT' : 'UNION',
    );
    const gauge =
      op === 'AND'
        ? set
        : compound(
            sets.map((rows) => sql`SELECT 1 FROM (${rows!.gauge})`),
            'UNION ALL',
          );
    const probe = balanced(
      sets.map((rows) => rows!.probe),
      op,
    );
    const alternatives = op === 'OR' ? sets.flatMap((rows) => rows!.alternatives ?? [rows!]) : undefined;
    const wide = sets.some((rows) => rows!.wide);
    return this.withSet(joined, {
      set,
      probe,
      gauge,
      own: sets.some((rows) => rows!.own),
      merged: true,
      ...(wide ? { wide } : {}),
      ...(alternatives ? { alternatives } : {}),
    });
  }

  /**
   * `condition` on a field with an index of its own, marked as the row set
   * the index's `ranges` list (outside any `not`, where a set can stand for
   * the condition, and only with a workspace to scope the ranges).
   */
  private indexed(field: Field, condition: SQL, ranges: () => SQL[], wide = false): SQL {
    const rows = this.catalog.indexedRows;
    if (!field.index || !rows || this.negations > 0 || this.workspaceId === undefined) return condition;
    const workspace = this.workspaceRef()!;
    const parts = ranges();
    const set = compound(
      parts.map((range) => rows.range(field.index!, workspace, range)),
      'UNION ALL',
    );
    return this.withSet(condition, {
      set,
      probe: condition,
      gauge: set,
      own: true,
      ...(parts.length === 1 ? { index: field.index } : {}),
      ...(wide ? { wide } : {}),
    });
  }

  /**
   * A reference to an array of values, usable as `IN (...)`. Packed, it reads
   * the CTE rather than the joined row, so SQLite sees an uncorrelated
   * subquery and builds the list once instead of once per row.
   */
  arrayRef(values: unknown[]): SQL {
    const { column } = this.next(values);
    return this.inline
      ? sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`
      : sql.raw(`(SELECT value FROM json_each((SELECT ${column} FROM fp)))`);
  }

  /** A reference to one value for use inside an uncorrelated subquery (packed, it reads the CTE, like `arrayRef`). */
  scalarRef(value: unknown): SQL {
    const { param, column } = this.next(value);
    return this.inline ? param : sql.raw(`(SELECT ${column} FROM fp)`);
  }

  field(name: unknown): Field {
    if (typeof name !== 'string' || name.length === 0) throw invalidFilter('a condition needs a "field" string');
    const def = ownEntry(this.catalog.fields, name);
    if (def) return { ...def, name };
    if (name.startsWith('custom_fields.') && this.catalog.customField) {
      const key = name.slice('custom_fields.'.length);
      if (!CUSTOM_KEY.test(key)) throw invalidFilter(`invalid custom field key "${shown(key)}"`);
      return { kind: 'json', expr: this.catalog.customField(this.ref(`$."${key}"`)), name, customKey: key };
    }
    throw invalidFilter(`unknown field "${shown(name)}"`);
  }

  /** Type-checks and coerces one value for a field (the documented 400 messages). */
  coerce(field: Field, value: unknown): unknown {
    const bad = (what: string) => SharedErrors.filterValueNot({ field: field.name, value: shown(value), expected: what });
    switch (field.kind) {
      case 'uuid':
        if (!isUuid(value)) throw bad('a UUID');
        return value.toLowerCase();
      case 'enum':
        if (typeof value !== 'string' || !field.values!.includes(value)) {
          throw SharedErrors.filterValueRule({ field: field.name, rule: `one of ${field.values!.join(', ')}` });
        }
        return value;
      case 'number':
      case 'integer': {
        const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value.trim()) ? Number(value) : NaN;
        if (!Number.isFinite(n)) throw bad('a number');
        return n;
      }
      case 'boolean':
        if (value === true || value === 'true') return 1;
        if (value === false || value === 'false') return 0;
        throw bad('a boolean');
      case 'date':
      case 'timestamp': {
        if (typeof value !== 'string') throw bad('a date');
        const text = value.trim();
        if (DATE_ONLY.test(text)) {
          if (Number.isNaN(Date.parse(`${text}T00:00:00Z`))) throw bad('a date');
          return text;
        }
        const ms = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
        if (Number.isNaN(ms)) throw bad('a date');
        return field.kind === 'date' ? new Date(ms).toISOString().slice(0, 10) : new Date(ms).toISOString();
      }
      case 'text':
        if (typeof value === 'number' || typeof value === 'boolean') return String(value);
        if (typeof value !== 'string') throw SharedErrors.filterValueRule({ field: field.name, rule: 'a string' });
        return value;
      case 'json':
        if (value !== null && typeof value === 'object') {
          throw SharedErrors.filterValueRule({ field: field.name, rule: 'a string, number or boolean' });
        }
        return typeof value === 'boolean' ? (value ? 1 : 0) : value;
    }
  }

  /** Timestamps compared with a date-only value compare by day. */
  private lhs(field: Field, coerced: unknown): SQL {
    if (field.kind === 'timestamp' && typeof coerced === 'string' && DATE_ONLY.test(coerced)) {
      return sql`substr(${field.expr}, 1, 10)`;
    }
    return field.expr;
  }

  condition(fieldName: unknown, op: Op, raw: unknown): SQL {
    const field = this.field(fieldName);
    const value = field.name === 'workspace_id' && this.workspaceId ? (Array.isArray(raw) ? raw.map(() => this.workspaceId) : this.workspaceId) : raw;
    const custom = this.catalog.customValues;
    if (custom && field.customKey !== undefined && this.negations === 0 && VALUE_OPS.includes(op) && value !== null) {
      this.uncorrelated = true;
      try {
        const workspace = this.workspaceRef();
        if (workspace) {
          const keyRef = this.ref(field.customKey);
          const operand: { rhs?: SQL } = {};
          const holds = this.compare({ kind: field.kind, name: field.name, expr: sql.raw('v.value') }, op, value, operand);
          const equals = op === 'eq' && operand.rhs ? [operand.rhs] : undefined;
          const rows = this.customRows({ key: field.customKey, keyRef, workspace, holds, equals });
          return this.withSet(custom.member(rows.set), rows);
        }
      } finally {
        this.uncorrelated = false;
      }
    }
    return this.compare(field, op, value);
  }

  private customRows(condition: CustomCondition): RowSet {
    const custom = this.catalog.customValues!;
    const set = custom.set(condition.keyRef, condition.workspace, condition.holds);
    return { set, probe: custom.probe(condition.keyRef, condition.holds), gauge: set, ranged: true, custom: condition };
  }

  /** `field op value`, the value checked against the field's kind; `operand.rhs` gets the value's reference when it is one. */
  private compare(field: Field, op: Op, value: unknown, operand: { rhs?: SQL } = {}): SQL {
    if (op === 'is_null') return sql`(${field.expr} IS NULL)`;
    if (op === 'is_not_null') return sql`(${field.expr} IS NOT NULL)`;
    if (SUBSTRING_OPS.includes(op)) {
      if (field.kind !== 'text' && field.kind !== 'json') {
        throw invalidFilter(`operator "${op}" applies to text fields only ("${field.name}" is not a text field)`);
      }
      if (typeof value !== 'string') throw SharedErrors.filterValueRule({ field: field.name, rule: 'a string' });
      // LIKE matches ASCII letters in either case and other characters as written, in one pass and with no copy of the text.
      const literal = value.replace(/[\\%_]/g, (m) => `\\${m}`);
      const like = (pattern: string) => sql`${field.expr} LIKE ${this.ref(pattern)} ESCAPE '\\'`;
      switch (op) {
        case 'contains':
          return sql`(${like(`%${literal}%`)})`;
        case 'not_contains':
          return sql`(${field.expr} IS NULL OR NOT ${like(`%${literal}%`)})`;
        case 'starts_with': {
          const condition = sql`(${like(`${literal}%`)})`;
          // The prefix's spellings are ranges of the field's index (disjoint: UNION ALL lists each row once); LIKE still decides.
          const spans = field.index ? prefixRanges(value) : null;
          if (!spans) return condition;
          return this.indexed(field, condition, () =>
            spans.map(([from, to]) => sql`(${field.expr} >= ${this.ref(from)} AND ${field.expr} < ${this.ref(to)} AND ${condition})`),
          );
        }
        default:
          return sql`(${like(`%${literal}`)})`;
      }
    }
    if (op === 'in' || op === 'not_in') {
      if (!Array.isArray(value)) throw invalidFilter(`operator "${op}" needs an array value`);
      if (value.length > MAX_ARRAY_ITEMS) throw invalidFilter(`arrays hold at most ${MAX_ARRAY_ITEMS} items`);
      const items = value.map((v) => this.coerce(field, v));
      const list = this.arrayRef(items);
      return op === 'in' ? sql`(${field.expr} IN ${list})` : sql`(${field.expr} IS NULL OR ${field.expr} NOT IN ${list})`;
    }
    if (ORDER_OPS.includes(op) && !ORDERED_KINDS.includes(field.kind)) {
      throw invalidFilter(`operator "${op}" does not apply to ${field.kind} field "${field.name}"`);
    }
    if (value === null && (op === 'eq' || op === 'neq')) {
      return op === 'eq' ? sql`(${field.expr} IS NULL)` : sql`(${field.expr} IS NOT NULL)`;
    }
    if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
      throw invalidFilter(`operator "${op}" on "${field.name}" needs a single value`);
    }
    const coerced = this.coerce(field, value);
    // Outside any `not` (where NULL and false select the same rows) a boolean's index-friendly form may stand in.
    if (field.truth && this.negations === 0 && ((op === 'eq' && coerced === 1) || (op === 'neq' && coerced === 0))) {
      const truth = sql`${field.truth}`;
      return this.indexed(field, truth, () => [truth]);
    }
    const lhs = this.lhs(field, coerced);
    const rhs = (operand.rhs = this.ref(coerced));
    if (op === 'neq') return sql`(${lhs} IS NOT ${rhs})`;
    const condition = sql`(${lhs} ${sql.raw(COMPARISONS[op as keyof typeof COMPARISONS])} ${rhs})`;
    // Equality and ranges on an indexed column are ranges of its index.
    return lhs === field.expr ? this.indexed(field, condition, () => [condition], op !== 'eq') : condition;
  }

  /** A `$where` node: `{and: [...]}`, `{or: [...]}`, `{not: node}` or `{field, op, value}`. */
  node(node: unknown, depth = 0): SQL {
    if (depth > MAX_DEPTH) throw invalidFilter(`the condition tree is nested too deeply (at most ${MAX_DEPTH} levels)`);
    if (node === null || typeof node !== 'object' || Array.isArray(node)) throw invalidFilter('every node must be an object');
    this.countNode();
    const obj = node as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
      const children = obj[keys[0]];
      if (!Array.isArray(children) || children.length === 0) throw invalidFilter(`"${keys[0]}" needs a non-empty array of nodes`);
      if (children.length > MAX_NODES) throw invalidFilter(`too many conditions (at most ${MAX_NODES} nodes)`);
      const parts = children.map((child) => this.node(child, depth + 1));
      return this.combine(parts, keys[0] === 'and' ? 'AND' : 'OR');
    }
    if (keys.length === 1 && keys[0] === 'not') {
      this.negations += 1;
      try {
        return sql`(NOT ${this.node(obj.not, depth + 1)})`;
      } finally {
        this.negations -= 1;
      }
    }
    const extra = keys.filter((k) => k !== 'field' && k !== 'op' && k !== 'value');
    if (extra.length > 0 || !Object.hasOwn(obj, 'field') || !Object.hasOwn(obj, 'op')) {
      throw invalidFilter('a node is {"and": [...]}, {"or": [...]}, {"not": node} or {"field", "op", "value"}');
    }
    if (typeof obj.op !== 'string' || !(OPS as readonly string[]).includes(obj.op)) {
      throw invalidFilter(`unknown operator "${shown(obj.op)}" (one of ${OPS.join(', ')})`);
    }
    const op = obj.op as Op;
    const needsValue = op !== 'is_null' && op !== 'is_not_null';
    if (needsValue && !Object.hasOwn(obj, 'value')) throw invalidFilter(`operator "${op}" needs a "value"`);
    return this.condition(obj.field, op, obj.value);
  }

  /** Top level: keys ANDed; exact match, any-of arrays, `{$gt}`, `$where`, resource operators. */
  top(filter: Record<string, unknown>): SQL | undefined {
    const parts: SQL[] = [];
    for (const [key, value] of Object.entries(filter)) {
      if (key === '$where') {
        parts.push(this.node(value));
        continue;
      }
      if (key.startsWith('$')) {
        const operator = ownEntry(this.catalog.operators ?? {}, key);
        if (!operator) throw invalidFilter(`unknown operator "${shown(key)}"`);
        this.countNode();
        parts.push(operator(value, this));
        continue;
      }
      this.countNode();
      if (Array.isArray(value)) {
        parts.push(this.condition(key, 'in', value));
      } else if (value !== null && typeof value === 'object') {
        const ops = Object.keys(value);
        if (ops.length !== 1 || ops[0] !== '$gt') {
          throw invalidFilter(`"${shown(key)}": only {"$gt": value} is allowed at the top level; use $where for other comparisons`);
        }
        parts.push(this.condition(key, 'gt', (value as Record<string, unknown>).$gt));
      } else {
        parts.push(this.condition(key, 'eq', value));
      }
    }
    return parts.length ? this.combine(parts, 'AND') : undefined;
  }
}

/**
 * Compiles a parsed `filter` object; the query starts with `filterWith(values)` and joins `fp`.
 * `rows`, when the whole filter is a row set: the subquery listing exactly the matching rows' ids.
 * A small tree is compiled again with its values bound inline (`values` is then empty),
 * unless `packed` asks for the values to stay hidden from the planner (a page that must walk
 * its sort index rather than sort what a value's index finds); `inline` binds them inline
 * whatever their number (a caller that already compiled the tree packed and counted its values).
 */
export function compileFilter(
  filter: Record<string, unknown>,
  catalog: FilterCatalog,
  workspaceId?: string,
  opts: { packed?: boolean; inline?: boolean } = {},
): { where?: SQL; values: unknown[]; rows?: RowSet } {
  if (opts.inline) {
    const inline = new FilterBuilder(catalog, workspaceId, true);
    const where = inline.top(filter);
    return { where, values: [], rows: inline.rowSet(where) };
  }
  const packed = new FilterBuilder(catalog, workspaceId);
  const where = packed.top(filter);
  if (opts.packed || packed.values.length > INLINE_MAX) return { where, values: packed.values, rows: packed.rowSet(where) };
  const inline = new FilterBuilder(catalog, workspaceId, true);
  const inlineWhere = inline.top(filter);
  return { where: inlineWhere, values: [], rows: inline.rowSet(inlineWhere) };
}

/**
 * The statement prefix defining `fp`, the one-row source every compiled
 * condition reads its values from: start the query with it and join `fp`.
 * MATERIALIZED keeps SQLite from inlining the unpacking into every row. Column
 * names are generated indexes, never input.
 */
export function filterWith(values: unknown[]): SQL {
  const columns = values.map((_, i) => `json_extract(j, '$[${i}]') AS v${i}`);
  return sql`WITH fp AS MATERIALIZED (SELECT ${sql.raw(columns.length ? columns.join(', ') : 'NULL AS v_none')} FROM (SELECT ${JSON.stringify(values)} AS j))`;
}
