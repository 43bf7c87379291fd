"""Sentence encoding with the bundled MiniLM (issue 21): `Encoder.encode` against the model's bare forward pass and
sentence-transformers' `SentenceTransformer.encode`, on 2,000 CAH texts (bench/_common.make_texts), in one run.

1. ours: `get_encoder().encode(texts)` (validation, `clip_text`, tokenizing, the forward pass, mean pooling, L2 norm).
2. the bare forward pass: the transformer alone (`auto_model(**features)` under `torch.inference_mode`), tokenized
   beforehand (untimed), on our batches (sorted by word pieces, 64 a batch) and on the batches sentence-transformers
   builds (sorted by characters, which pads more).
3. sentence-transformers' `encode(texts, normalize_embeddings=True)` on the same texts, the same model object.

All three run with the same torch thread count: as the library leaves it (torch's default: the machine's cores), or --threads. Medians of 3 (--repeats)
after a warm-up call on 64 texts; peak traced Python memory on 256 of the texts; the vectors of ours and sentence-transformers must agree to 1e-5. Aim: ours within 1.1x of the
bare forward pass.

    python bench/bench_encode.py [--n 2000] [--batch-size 64] [--quick] [--json PATH]
"""
import argparse, sys
from pathlib import Path
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, make_texts, peak_mib, row, timed

def forward_batches(st, texts, batch_size, ours=False):
    "The tokenized batches `Encoder.encode` (ours) or sentence-transformers' encode (texts sorted by characters, longest first) runs."
    from cah_metrics.embeddings import _length_batches
    if ours: idx = _length_batches(st, texts, batch_size)
    else:
        order = np.argsort([-len(t) for t in texts], kind='stable')
        idx = [order[s:s + batch_size] for s in range(0, len(texts), batch_size)]
    return [st.preprocess([texts[i] for i in b]) for b in idx]

def bare_forward(model, batches):
    import torch
    with torch.inference_mode():
        for f in batches: model(**f)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--n', type=int, default=2000); ap.add_argument('--batch-size', type=int, default=64)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--threads', type=int, help='torch threads for all three (default: as the library leaves them)')
    ap.add_argument('--quick', action='store_true'); ap.add_argument('--json')
    a = ap.parse_args()
    n = 300 if a.quick else a.n
    import torch
    from cah_metrics.embeddings import get_encoder
    if a.threads: torch.set_num_threads(a.threads)
    enc = get_encoder(); st = enc._st
    texts = make_texts(n)
    model = st[0].auto_model
    batches, st_batches = forward_batches(st, texts, a.batch_size, ours=True), forward_batches(st, texts, a.batch_size)
    ours = lambda: enc.encode(texts, batch_size=a.batch_size, progress=False)
    peer = lambda: st.encode(texts, batch_size=a.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    fwd, st_fwd = lambda: bare_forward(model, batches), lambda: bare_forward(model, st_batches)
    reps = 1 if a.quick else a.repeats
    enc.encode(texts[:64], progress=False); bare_forward(model, batches[:1])   # warm-up
    t_fwd, t_stf, t_ours, t_peer = [], [], [], []
    for _ in range(reps):                                                   # interleaved, so load changes hit all four alike
        t_fwd.append(timed(fwd, 1)[0]); t_stf.append(timed(st_fwd, 1)[0])
        s, E = timed(ours, 1); t_ours.append(s); s, P = timed(peer, 1); t_peer.append(s)
    med = lambda x: float(np.median(x))
    t_fwd, t_stf, t_ours, t_peer = med(t_fwd), med(t_stf), med(t_ours), med(t_peer)
    err = float(np.abs(E - P).max())
    ok = E.shape == P.shape and err <= 1e-5
    few = texts[:256]                                                       # traced memory on a few texts: tracemalloc slows the run, and torch's tensors are not traced
    m_ours = peak_mib(lambda: enc.encode(few, batch_size=a.batch_size, progress=False))
    m_peer = peak_mib(lambda: st.encode(few, batch_size=a.batch_size, normalize_embeddings=True, show_progress_bar=False))
    ntok = sum(int(b['attention_mask'].sum()) for b in batches)
    npad, nstpad = (sum(b['attention_mask'].numel() for b in bs) for bs in (batches, st_batches))
    print(f"{n:,} CAH texts, batch {a.batch_size}, torch threads {torch.get_num_threads()}: {ntok:,} word pieces in {npad:,} padded slots "
          f"(sentence-transformers' batches: {nstpad:,}); bare forward on our batches {t_fwd:.3f} s, on its batches {t_stf:.3f} s; ours {t_ours:.3f} s ({t_ours / t_fwd:.3f}x the forward pass, {n / t_ours:,.0f} texts/s), "
          f"sentence-transformers {t_peer:.3f} s ({t_peer / t_fwd:.3f}x, {n / t_peer:,.0f} texts/s); max |ours - s-t| {err:.1e} -> {'ok' if ok else 'DIFFER'}")
    task = f"MiniLM sentence encoding, {n:,} CAH texts (20-30 words), batch {a.batch_size}, {torch.get_num_threads()} torch threads"
    rows = [row(task + ': ours vs the bare transformer forward pass on the same batches', t_ours, 'bare forward pass', t_fwd,
                aim='within 1.1x of the forward pass', met=t_ours <= 1.1 * t_fwd, numbers='forward pass only (no pooling)'),
            row(task + ": ours vs the bare forward pass on sentence-transformers' batches (sorted by characters)", t_ours,
                'bare forward pass, s-t batches', t_stf, aim='within 1.1x of the forward pass', met=t_ours <= 1.1 * t_stf,
                numbers='forward pass only (no pooling)'),
            row(task + f': ours vs sentence-transformers encode ({n / t_ours:,.0f} vs {n / t_peer:,.0f} texts/s)', t_ours,
                'sentence-transformers', t_peer, ours_mib=m_ours, peer_mib=m_peer, aim='no slower than sentence-transformers',
                met=t_ours <= t_peer * 1.05 and ok, numbers='equal to 1e-5')]
    emit(rows, a.json)
    return 0 if ok else 1

if __name__ == '__main__': sys.exit(main())
