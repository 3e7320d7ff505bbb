export { Template } from './dto';
export { BUTTON_TYPES, MEDIA_TYPES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './schema';
export { createTemplate } from './templates';
