/** What a handle is made over: a D1 binding, or a session wrapped as ./floors.ts and ./write-gate.ts do. */
export type Queryable = Pick<D1Database, 'prepare' | 'batch'>;
