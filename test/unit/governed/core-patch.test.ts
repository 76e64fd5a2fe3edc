import { describe, expect, it } from 'vitest';
import { CellgateError, createMetricsRegistry } from 'cellgate';
import { applyPatch, parsePatch } from '../../../src/governed/patch.ts';

const none = () => false;
const failure = (fn: () => unknown): CellgateError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CellgateError);
    return error as CellgateError;
  }
  throw new Error('expected a failure');
};

describe('JSON Patch (RFC 6902)', () => {
  it('handles escaped pointers, array indexes and the end marker', () => {
    const doc = { 'a/b': 1, 'c~d': 2, list: [1, 2] };
    const ops = parsePatch(
      [
        { op: 'replace', path: '/a~1b', value: 10 },
        { op: 'remove', path: '/c~0d' },
        { op: 'add', path: '/list/-', value: 3 },
        { op: 'add', path: '/list/0', value: 0 },
        { op: 'remove', path: '/list/1' },
      ],
      none,
    );
    expect(applyPatch(doc, ops)).toEqual({ 'a/b': 10, list: [0, 2, 3] });
    expect(doc).toEqual({ 'a/b': 1, 'c~d': 2, list: [1, 2] });
  });

  it('fails atomically, naming the failing operation', () => {
    const doc = { a: { b: 1 }, list: [1] };
    expect(
      failure(() =>
        applyPatch(
          doc,
          parsePatch(
            [
              { op: 'replace', path: '/a/b', value: 2 },
              { op: 'remove', path: '/missing' },
            ],
            none,
          ),
        ),
      ).details?.fields,
    ).toEqual([{ path: 'patch.1.path', message: 'path does not exist' }]);
    expect(failure(() => applyPatch(doc, parsePatch([{ op: 'add', path: '/list/5', value: 1 }], none))).status).toBe(400);
    expect(failure(() => applyPatch(doc, parsePatch([{ op: 'move', from: '/a', path: '/a/c' }], none))).status).toBe(400);
    expect(failure(() => applyPatch(doc, parsePatch([{ op: 'add', path: '/list/01', value: 1 }], none))).status).toBe(400);
    expect(doc).toEqual({ a: { b: 1 }, list: [1] });
  });

  it('refuses malformed operations with their paths', () => {
    const error = failure(() =>
      parsePatch(
        [{ op: 'add', path: 'x' }, { op: 'copy', path: '/a' }, 'nope', { op: 'replace', path: '/id', value: 1 }, { op: 'add', path: '/a/~2', value: 1 }],
        (field) => field === 'id',
      ),
    );
    expect((error.details?.fields as { path: string }[]).map((f) => f.path)).toEqual([
      'patch.0.path',
      'patch.0.value',
      'patch.1.from',
      'patch.2',
      'patch.3.path',
      'patch.4.path',
    ]);
    expect(failure(() => parsePatch({ op: 'add' }, none)).details?.fields).toEqual([{ path: 'patch', message: 'Expected an array' }]);
  });
});

describe('metrics registry', () => {
  it('renders counters and histograms in the Prometheus text format', () => {
    const registry = createMetricsRegistry();
    const counter = registry.counter('jobs_total', 'Jobs.');
    counter.inc({ kind: 'a"b\\c' });
    counter.inc({ kind: 'a"b\\c' }, 2);
    expect(registry.counter('jobs_total', 'again')).toBe(counter);
    const histogram = registry.histogram('latency_ms', 'Latency.', [1, 10]);
    histogram.observe(0.5);
    histogram.observe(5);
    histogram.observe(50);
    expect(registry.render()).toBe(
      [
        '# HELP jobs_total Jobs.',
        '# TYPE jobs_total counter',
        'jobs_total{kind="a\\"b\\\\c"} 3',
        '# HELP latency_ms Latency.',
        '# TYPE latency_ms histogram',
        'latency_ms_bucket{le="1"} 1',
        'latency_ms_bucket{le="10"} 2',
        'latency_ms_bucket{le="+Inf"} 3',
        'latency_ms_sum 55.5',
        'latency_ms_count 3',
        '',
      ].join('\n'),
    );
  });
});
