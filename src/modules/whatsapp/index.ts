export { Template, TemplateSend } from './dto';
export { BUTTON_TYPES, MEDIA_TYPES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './schema';
export { createTemplate, selectTemplate } from './templates';
export { sendTemplate } from './send';
