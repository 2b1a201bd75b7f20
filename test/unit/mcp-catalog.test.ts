import { ApplicationFailure } from '@temporalio/common';
import { McpCatalog } from '../../mcp/catalog';
import { listingId } from '../../mcp/listing';

const tools = { calc_add: { server: 'calc', tool: 'add', description: 'Adds.', parameters: { type: 'object' } } };
const id = listingId(tools);

it('gives the definitions of a listing it was told, by id', () => {
  const catalog = new McpCatalog();
  catalog.remember(id, tools);
  expect([...catalog.definitions({ id }).values()]).toEqual([
    { name: 'calc_add', description: 'Adds.', parameters: { type: 'object' } },
  ]);
  expect(catalog.definitions(undefined).size).toBe(0);
});

it('says McpToolsUnavailable (not retried) for a listing it does not know, and learns one sent along', () => {
  const catalog = new McpCatalog();
  let failure: unknown;
  try {
    catalog.definitions({ id });
  } catch (error) {
    failure = error;
  }
  expect(failure).toBeInstanceOf(ApplicationFailure);
  expect(failure).toMatchObject({ type: 'McpToolsUnavailable', nonRetryable: true });
  expect(catalog.definitions({ id, tools }).get('calc_add')?.description).toBe('Adds.');
  expect(catalog.definitions({ id }).has('calc_add')).toBe(true);
});

it('does not take tools that do not match the id they are sent with', () => {
  const catalog = new McpCatalog();
  expect(() => catalog.definitions({ id: 'f'.repeat(64), tools })).toThrow(/is not known to this worker/);
});

it('forgets the listing used least recently beyond its capacity', () => {
  const catalog = new McpCatalog(2);
  const other = (name: string) => ({ [name]: { ...tools.calc_add, tool: name } });
  catalog.remember('one', other('one'));
  catalog.remember('two', other('two'));
  catalog.definitions({ id: 'one' });
  catalog.remember('three', other('three'));
  expect(() => catalog.definitions({ id: 'two' })).toThrow(/is not known/);
  expect(catalog.definitions({ id: 'one' }).has('one')).toBe(true);
});
