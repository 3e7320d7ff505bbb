export { contextFor, publicWorkspaceContext, workspaceContext } from './context';
export {
  createApiKey,
  createUser,
  createWorkspace,
  findWorkspaceByWhatsAppNumber,
  getWorkspace,
  memberName,
  memberRows,
  patchWorkspace,
  readRequestLog,
  revokeApiKey,
  selectActiveMember,
  selectMembers,
  serializeWorkspace,
} from './service';
