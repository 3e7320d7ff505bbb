import { defineErrors } from '../../platform/errors';

/** Workspaces, keys and users are managed through the operator API, which answers the framework shape. */
export const WorkspaceErrors = defineErrors('WorkspaceErrors', {
  notFound: { status: 404, message: 'Workspace not found' },
  apiKeyNotFound: { status: 404, message: 'API key not found' },
  whatsappNumberTaken: { status: 409, message: 'Another workspace already uses this whatsapp_phone_number_id' },
  userExists: { status: 409, message: 'A user with this email already exists in the workspace' },
});
