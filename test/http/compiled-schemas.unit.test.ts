import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSharedSerializer, compiledOnce } from '../../src/http/server/compiled-schemas.ts';

/**
 * Validators and serializers are compiled once per process and shared by every app that declares
 * the same schema (src/http/server/compiled-schemas.ts): the suite builds hundreds of apps.
 */
const problem = { $id: 'Problem', type: 'object', properties: { code: { type: 'string' } } };
const route = (schema: unknown, httpStatus = '200') => ({ method: 'GET', url: '/x', httpStatus, schema });

test('compiledOnce compiles a key once and hands every later caller the same function', () => {
  let compiles = 0;
  const make = () =>
    compiledOnce('test key one', () => {
      compiles++;
      return () => 'one';
    });
  assert.equal(make(), make());
  assert.equal(compiles, 1);
  assert.notEqual(
    compiledOnce('test key two', () => () => 'two'),
    make(),
  );
});

test('two apps declaring equal schemas (their own copies) share one serializer; another schema or other shared schemas get their own', () => {
  const schema = () => ({ type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } } });
  const first = buildSharedSerializer({ Problem: problem }, {})(route(schema()));
  const second = buildSharedSerializer({ Problem: structuredClone(problem) }, {})(route(schema()));
  assert.equal(first, second);
  assert.equal(first({ name: 'a', size: 3, other: true }), '{"name":"a","size":3}');

  const other = buildSharedSerializer({ Problem: problem }, {})(route({ type: 'object', properties: { name: { type: 'string' } } }));
  assert.notEqual(other, first);
  assert.equal(other({ name: 'a', size: 3 }), '{"name":"a"}');

  const otherShared = { Problem: { ...problem, properties: { code: { type: 'string' }, status: { type: 'integer' } } } };
  const refSchema = { $ref: 'Problem#' };
  const withProblem = buildSharedSerializer({ Problem: problem }, {})(route(refSchema, '400'));
  const withOtherProblem = buildSharedSerializer(otherShared, {})(route(refSchema, '400'));
  assert.notEqual(withProblem, withOtherProblem);
  assert.equal(withProblem({ code: 'X', status: 400 }), '{"code":"X"}');
  assert.equal(withOtherProblem({ code: 'X', status: 400 }), '{"code":"X","status":400}');
});
