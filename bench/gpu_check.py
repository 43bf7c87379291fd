"""GPU check: BERTScore, sentence encoding and a Dask worker's model on a GPU, against the CPU of the same machine.

Needs a CUDA GPU; CI never runs it. Run on a machine with one, from the repository root:

    python bench/gpu_check.py [--config DIR]      # writes bench/results/gpu_check.json (or $OUT/gpu_check.json)

It builds a model of all-MiniLM-L6-v2's shape: its config and tokenizer files (from the bundled model's folder, or
--config DIR holding copies of them) with weights drawn at random (seeded), so that the check needs no 87 MB of
weights where only the repository travels. Speed depends on the shapes only, and the GPU-vs-CPU agreement is checked
on that same model. NG and NC (environment) set the pairs/texts timed on the GPU (20,000) and on the CPU (2,000).
1. BERTScore (ours) on the GPU vs on the CPU (16 cores): pairs per second, and F1 on the same 2,000 pairs.
2. Sentence encoding (ours, `Encoder(device='cuda')`) vs CPU: texts per second, and the vectors' agreement.
3. `distributed.evaluate(..., ['bertscore'])` on a LocalCluster of one worker process: the worker builds BERTScore with
   use_gpu=True by itself (its model on cuda), and the report equals the in-process GPU run.
bench/gpu_floor.py measures the same pairs against the bare forward pass and bert-score /
sentence-transformers on the same card, and breaks down where ours spends its time.
"""
import json, os, shutil, sys, time
sys.path.insert(0, os.getcwd())
import numpy as np, torch

def where():
    import cah_metrics.distributed as D
    return {k: str(getattr(v, 'device', '?')) for k, v in D._PROTOS.items()}

def main():
    global res, OUT
    NG, NC = int(os.environ.get('NG', 20000)), int(os.environ.get('NC', 2000))   # pairs/texts timed on the GPU, on the CPU
    OUT = os.environ.get('OUT') or os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results'); os.makedirs(OUT, exist_ok=True)
    res = {'torch': torch.__version__, 'gpu': torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, 'cpus': os.cpu_count()}
    def log(k, v): res[k] = v; print(k, v, flush=True); json.dump(res, open(f'{OUT}/gpu_check.json', 'w'), indent=1)

    MDIR = '/tmp/minilm_shape'
    from transformers import BertConfig, BertModel
    cfg = sys.argv[sys.argv.index('--config') + 1] if '--config' in sys.argv else None
    if cfg is None:
        from cah_metrics.embeddings import model_path
        cfg = model_path()
    shutil.copytree(cfg, MDIR, dirs_exist_ok=True, ignore=shutil.ignore_patterns('*.safetensors', '*.bin', '*.onnx', 'onnx', 'openvino'))
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(MDIR)).save_pretrained(MDIR)

    from cah_metrics.corpora import default_pack
    pack = default_pack()
    A, P = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts]
    rng = np.random.default_rng(0)
    preds = [P[i].replace('_', A[j], 1) for i, j in zip(rng.integers(0, len(P), 20000), rng.integers(0, len(A), 20000))]
    refs = [P[i].replace('_', A[j], 1) for i, j in zip(rng.integers(0, len(P), 20000), rng.integers(0, len(A), 20000))]

    from cah_metrics.core import load
    def bert(n, gpu):
        m = load('bertscore', model=MDIR, use_gpu=gpu, progress=False, keep_items=True)
        t = time.perf_counter(); m.update(preds[:n], references=refs[:n]); s = m.compute(); dt = time.perf_counter() - t   # update embeds
        return s, dt, m
    torch.set_num_threads(os.cpu_count())
    bert(200, True); bert(200, False)                                   # warm: model load, CUDA context
    g, tg, mg = bert(NG, True); log('bertscore_gpu', {'pairs': NG, 's': round(tg, 3), 'pairs_per_s': round(NG / tg), 'device': str(getattr(mg, 'device', '?'))})
    c, tc, _ = bert(NC, False); log('bertscore_cpu', {'pairs': NC, 's': round(tc, 3), 'pairs_per_s': round(NC / tc)})
    g2, tg2, _ = bert(NC, True); log('bertscore_gpu_same_pairs', {'pairs': NC, 's': round(tg2, 3), 'pairs_per_s': round(NC / tg2)})
    log('bertscore_gpu_vs_cpu_abs_diff', {k: abs(float(g2[k]) - float(c[k])) for k in ('precision', 'recall', 'f1') if k in g2})

    from cah_metrics.embeddings import Encoder
    texts = preds[:NG]
    GPU = 'cuda' if torch.cuda.is_available() else 'cpu'   # cpu: a dry run here
    for dev, n in ((GPU, NG), ('cpu', NC)):
        enc = Encoder(MDIR, device=dev); enc.encode(texts[:64], progress=False)
        t = time.perf_counter(); V = enc.encode(texts[:n], progress=False); dt = time.perf_counter() - t
        log(f'encode_{dev}_{n}', {'texts': n, 's': round(dt, 3), 'texts_per_s': round(n / dt)})
        if n == NG: Vg = V[:NC]
        else: log('encode_gpu_vs_cpu_max_abs', float(np.abs(Vg - V).max()))

    from distributed import Client, LocalCluster
    from cah_metrics.distributed import evaluate
    n = NG
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cl, Client(cl) as client:
        t = time.perf_counter()
        rep = evaluate({'predictions': preds[:n], 'references': refs[:n]}, ['bertscore'], client=client, partitions=8,
                       options={'bertscore': {'model': MDIR, 'progress': False}})
        dt = time.perf_counter() - t
        log('distributed_worker_devices', client.run(where))
        log('distributed_bertscore', {'s': round(dt, 3), 'report': json.loads(json.dumps(rep, default=str))['bertscore'] if 'bertscore' in rep else str(rep)[:600]})
    log('in_process_gpu_f1', float(g['f1']))
    print('DONE')


if __name__ == '__main__': main()
