import { WhatsAppErrors } from './errors';
import type { TemplateMessage } from '../../providers/whatsapp';
import type { TemplateSendInput } from './dto';
import { fill, isPositional, placeholdersOf } from './placeholders';
import type { Template } from './templates';

/**
 * The provider message for one send of `template` to `to`: body variables
 * matched to the template's placeholders (named ones by `param_name`, the rest
 * by position), the header and buttons checked against the template. Every
 * mismatch is collected and answered as one 400 with per-field strings.
 */
export function composeTemplateMessage(template: Template, to: string, input: Omit<TemplateSendInput, 'to'>): TemplateMessage {
  const problems: string[] = [];
  const values = bodyValues(template.placeholders, input.body_variables ?? [], problems);
  const header = headerOf(template, input.header_config, problems);
  const buttons = (input.button_configs ?? []).map((b, i) => {
    const index = b.index ?? i;
    if (index >= template.buttons.length) {
      problems.push(`button_configs[${i}].index: the template has ${template.buttons.length} button(s); index ${index} does not exist`);
    }
    return { sub_type: b.type, index, parameters: b.parameters };
  });
  if (problems.length) throw WhatsAppErrors.messageProblems({ problems });
  return {
    to,
    template: { name: template.name, language: template.language },
    body: template.placeholders.map((name) => ({ text: values[name], ...(isPositional(name) ? {} : { parameter_name: name }) })),
    header,
    buttons,
    renderedText: fill(template.body, values),
  };
}

/** Values per placeholder name; problems name the missing or unknown placeholder. */
export function bodyValues(placeholders: string[], variables: { text: string; param_name?: string }[], problems: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  const positional = placeholders.filter(isPositional);
  let next = 0;
  variables.forEach((v, i) => {
    if (v.param_name !== undefined) {
      if (!placeholders.includes(v.param_name)) problems.push(`body_variables[${i}].param_name: the template has no placeholder {{${v.param_name}}}`);
      else values[v.param_name] = v.text;
      return;
    }
    if (next >= positional.length) {
      problems.push(
        positional.length === 0 && placeholders.length > 0
          ? `body_variables[${i}]: the template has named placeholders; set param_name`
          : `body_variables[${i}]: the template takes ${positional.length} positional value(s)`,
      );
      return;
    }
    values[positional[next++]] = v.text;
  });
  for (const name of placeholders) {
    if (!Object.hasOwn(values, name)) problems.push(`body_variables: missing a value for placeholder {{${name}}}`);
  }
  return values;
}

function headerOf(template: Template, config: TemplateSendInput['header_config'], problems: string[]): TemplateMessage['header'] {
  const h = template.header;
  if (h && h.type !== 'text') {
    if (config?.type !== 'media') {
      problems.push(
        `header_config: the template has a ${h.type} header; send {"type": "media", "media_type": "${h.type}", "media_link": "https://..."}`,
      );
      return undefined;
    }
    if (config.media_type !== h.type) problems.push(`header_config.media_type: the template header is ${h.type}, not ${config.media_type}`);
    return { type: 'media', media_type: config.media_type, link: config.media_link };
  }
  const slots = h?.type === 'text' ? placeholdersOf(h.text) : [];
  if (config?.type === 'media') {
    problems.push('header_config: the template has no media header');
    return undefined;
  }
  const given = config?.variables ?? [];
  if (given.length !== slots.length) {
    problems.push(`header_config.variables: the template header takes ${slots.length} variable(s), ${given.length} given`);
    return undefined;
  }
  return slots.length ? { type: 'text', parameters: given } : undefined;
}
