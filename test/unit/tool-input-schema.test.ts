import { z } from 'zod';
import { createAgentRegistry } from '../../agents/registry';
import { defineTool, type Tool } from '../../tools/define-tool';
import { configurationProblem } from '../support/configuration-problem';

// A tool's input becomes the JSON Schema a model is offered (OpenAI's `parameters`, Anthropic's `input_schema`):
// both must be of type object, and a field with no JSON form (a Date) is offered as "anything" and then refused
// by the parse on every call. Such an input is refused when the tool is defined, naming the tool and the field.

const handler = async () => 'done';
const define = (input: unknown) => () =>
  defineTool({ name: 'schedule', description: 'Schedules a meeting.', input: input as z.ZodType, handler });

describe('a tool input the providers cannot take is refused at definition', () => {
  it('refuses a plain object of fields, which made a run hang', () => {
    expect(configurationProblem(define({ when: z.string() }))).toBe(
      'tool "schedule": input must be a zod 4 object schema, z.object({ ... }), not a plain object: wrap its fields in z.object()',
    );
  });

  it('refuses a schema that is not an object, naming what it is', () => {
    expect(configurationProblem(define(z.string()))).toBe(
      'tool "schedule": input must be z.object({ ... }): a model sends a tool\'s arguments as one JSON object, and this schema is a string',
    );
    expect(configurationProblem(define(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })])))).toMatch(
      /this schema is not an object \(a union, or any value\)$/,
    );
  });

  it('names each field with no JSON form, nested and in arrays, and what to use instead', () => {
    const input = z.object({
      title: z.string(),
      when: z.date(),
      attendees: z.array(z.object({ invited: z.date().optional() })),
      budget: z.object({ cents: z.bigint() }),
    });
    expect(configurationProblem(define(input))).toBe(
      'tool "schedule": field "attendees[].invited" is a Date, which JSON cannot carry: use z.iso.datetime() (a string) and convert it in the handler; ' +
        'field "budget.cents" is a bigint, which JSON cannot carry: use z.number().int() or a string of digits; ' +
        'field "when" is a Date, which JSON cannot carry: use z.iso.datetime() (a string) and convert it in the handler',
    );
  });

  it('accepts an object whose fields all have a JSON form, transforms included (the model sees their input side)', () => {
    const tool = define(z.object({ when: z.iso.datetime().transform((text) => new Date(text)), note: z.unknown() }))();
    expect(tool.name).toBe('schedule');
  });

  it('refuses, in the registry, a tool written as an object literal without defineTool', () => {
    const literal = { name: 'literal', description: 'A literal tool.', input: { path: z.string() }, handler } as unknown as Tool;
    expect(configurationProblem(() => createAgentRegistry({ tools: [literal] }))).toMatch(
      /^tool "literal": input must be a zod 4 object schema, z\.object\(\{ \.\.\. \}\), not a plain object/,
    );
  });
});
