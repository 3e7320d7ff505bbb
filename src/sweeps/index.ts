// Importing a module's sweep file registers it (see ./registry).
export {};
