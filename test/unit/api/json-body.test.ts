/**
 * scanJsonBody (main/api/json-body.ts): depth and value count from the raw text, brackets inside
 * strings (escaped quotes included) ignored, the path of the first value past the depth limit
 * named as the walk after JSON.parse named it. Expected values are counted by hand.
 */
import { describe, expect, it } from 'vitest';
import { scanJsonBody } from '../../../main/api/json-body';

const scan = (text: string, depth = 4, elements = 100) => scanJsonBody(Buffer.from(text, 'utf8'), depth, elements);

describe('scanJsonBody', () => {
  it('accepts nesting up to the limit and names the path of the first level past it', () => {
    expect(scan('{"a":{"b":[1,{"c":2}]}}')).toBeNull(); // 4 levels: {} {} [] {}
    expect(scan('{"a":{"b":[1,{"c":[2]}]}}')).toEqual({ kind: 'deep', path: 'body.a.b[1].c' });
    expect(scan('[[[[[1]]]]]')).toEqual({ kind: 'deep', path: 'body[0][0][0][0]' });
    expect(scan('{"x":1,"y":[0,0,{"z":{"w":{}}}]}')).toEqual({ kind: 'deep', path: 'body.y[2].z.w' });
  });

  it('ignores brackets, commas and escaped quotes inside strings, and decodes escaped keys in the path', () => {
    expect(scan('{"a":"[[[[[[{{{{,,,,\\"]]]"}', 2, 3)).toBeNull();
    expect(scan('{"k\\u00e9\\"y":{"[":{"b":{"c":{}}}}}')).toEqual({ kind: 'deep', path: 'body.ké"y.[.b.c' });
  });

  it('counts values (commas and openers) against the budget', () => {
    expect(scan('[1,2,3,4]', 4, 4)).toBeNull(); // 1 opener + 3 commas
    expect(scan('[1,2,3,4,5]', 4, 4)).toEqual({ kind: 'elements', count: 5 });
    expect(scan('{"a":[{},{}]}', 4, 5)).toBeNull(); // openers {, [, {, { and one comma: 5
    expect(scan('{"a":[{},{}]}', 4, 4)).toEqual({ kind: 'elements', count: 5 });
  });
});
