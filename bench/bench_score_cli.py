"""`cah-metrics score` (ROUGE-1/2/L/Lsum) vs rouge-score's own command line, whole processes: wall time and peak RSS.

Both read the same pairs from files (bench_rouge.doc_pairs: 2-4 newline-joined sentences of 6-14 card-pack words per
text): ours a JSON Lines file of strings, `--metrics rouge1 rouge2 rougeL rougeLsum --tokenizer rouge-score`, with its
default bootstrap (1,000 resamples); rouge-score's `python -m rouge_score.rouge` with the same four measures, records
split by --delimiter (its default, a newline, would cut the multi-sentence texts apart) and its default
BootstrapAggregator. Each runs as a child process (`run_peak_rss`), medians of --repeats; the peak RSS is the child's own.
Our package is byte-compiled first (`compileall`), as an installed package is, so that neither side compiles its
sources in the timed run (this environment sets PYTHONDONTWRITEBYTECODE).
The check: each of our mean F1s lies in rouge-score's 95% interval (rouge-score prints its bootstrap's median, not the
mean, so the two are not equal to the digit; bench_rouge.py checks the per-example numbers to 1e-9).

    python bench/bench_score_cli.py [--repeats 3] [--quick] [--json PATH]
"""
import argparse, compileall, csv, json, os, statistics, sys, tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, row, emit, run_peak_rss
from bench_rouge import doc_pairs

TYPES = ['rouge1', 'rouge2', 'rougeL', 'rougeLsum']
OURS = 'import sys; from cah_metrics.cli import main; sys.exit(main())'

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeats', type=int, default=3); ap.add_argument('--quick', action='store_true')
    ap.add_argument('--json', default=None, metavar='PATH', help="also append the result rows here (JSON Lines)")
    a = ap.parse_args()
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get('PYTHONPATH')] if p])}
    compileall.compile_dir(str(ROOT / 'cah_metrics'), quiet=1)
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for n in ((1000, 10_000) if a.quick else (1000, 100_000)):
            hyps, refs = doc_pairs(n)
            for name, texts in (('pred', hyps), ('ref', refs)):
                (d / f'{name}.jsonl').write_text(''.join(json.dumps(t) + '\n' for t in texts))
                (d / f'{name}.txt').write_text('\x1e'.join(texts))
            ours = [sys.executable, '-c', OURS, 'score', '--predictions', str(d / 'pred.jsonl'), '--references', str(d / 'ref.jsonl'),
                    '--metrics', *TYPES, '--tokenizer', 'rouge-score', '--output', str(d / 'ours.json')]
            peer = [sys.executable, '-m', 'rouge_score.rouge', f"--target_filepattern={d / 'ref.txt'}",
                    f"--prediction_filepattern={d / 'pred.txt'}", f"--output_filename={d / 'peer.csv'}",
                    f"--rouge_types={','.join(TYPES)}", '--delimiter=\x1e']
            res = {k: [run_peak_rss(c, env=env) for _ in range(a.repeats)] for k, c in (('ours', ours), ('peer', peer))}
            (to, mo), (tp, mp) = [(statistics.median(s for s, _ in v), max(m for _, m in v)) for v in res.values()]
            mine = json.loads((d / 'ours.json').read_text())
            theirs = {r['score_type']: r for r in csv.DictReader(open(d / 'peer.csv'))}
            inside = all(float(theirs[f'{t}-F']['low']) - 1e-6 <= mine[t] <= float(theirs[f'{t}-F']['high']) + 1e-6 for t in TYPES)
            ok &= inside
            rows.append(row(f"cah-metrics score, ROUGE-1/2/L/Lsum with a 1,000-resample bootstrap, {n:,} pairs of 2-4 sentences (whole process, peak RSS)",
                            to, 'rouge-score 0.1.2 CLI (python -m rouge_score.rouge, BootstrapAggregator)', tp, ours_mib=mo, peer_mib=mp,
                            aim='>= 5x rouge-score CLI, peak RSS <= its', met=tp / to >= 5 and mo <= mp and inside,
                            numbers='each mean F1 inside rouge-score\'s 95% interval' if inside else 'a mean F1 OUTSIDE rouge-score\'s interval'))
    emit(rows, a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
