"""GPU floor (issue #34, item 5): BERTScore and sentence encoding on a GPU vs its forward pass.

For the same 20,000 CAH pairs (texts) as bench/gpu_check.py, on one device, in one run:
1. the floor: the bare `BertModel` forward pass on batches tokenised, length-sorted (longest first),
   padded and moved to the device beforehand, under `torch.inference_mode`, batch 64 (ours' size);
   extra rows, marked as changing the numbers: bf16/fp16 autocast, fp16 weights, TF32 matmuls,
   and fp32 at batch 512 (another batch size);
2. ours (`load('bertscore', model=..., use_gpu=True)`, `Encoder(..., device='cuda')`) beside the
   references on the same card: bert-score's `BERTScorer(model_type=<folder>, num_layers=6)` (its
   default tokenizer, and use_fast_tokenizer=True) and sentence-transformers'
   `SentenceTransformer(<folder>).encode`;
3. where ours spends its time: a stage-by-stage copy of ours' own code path (the package's
   helpers, timed with a device sync after each stage: tokenising on the CPU, batching, host to
   device, forward, pooling or normalising, device to host, greedy matching, scoring), the padding
   ratio (padded slots / real word pieces), each stage's share, and ours as a fraction of the floor
   (aim: at least 0.8); the copy must give ours' numbers (checked).
Timings are medians of --repeats (3) runs, interleaved, after a warm-up. Everything goes to
$OUT/gpu_floor.json (else bench/results/gpu_floor.json), rewritten after each step, and is printed.
A missing reference or a failing step is recorded with its reason; the script exits 0.

The model has all-MiniLM-L6-v2's shape and tokenizer, weights drawn at random (seeded), as in
gpu_check.py: speed depends on the shapes only, and every side loads the same folder. The bundled
model's 87 MB of weights would not fit the device run's 64 MiB, so only its small files travel.

    python bench/gpu_floor.py --prepare      # here: build/gpu_model/ (config, tokenizer), .whl/
    python bench/gpu_floor.py --device cpu --n 200 --repeats 1      # a dry run on a CPU

The device machine has no internet and lacks fastcore and bert-score (torch, transformers,
sentence-transformers and the rest are in its image): --prepare downloads their two wheels to .whl/
and copies the bundled model's config and tokenizer files to build/gpu_model/ (both git-ignored).
Then, from the checkout the session started in, one call of the device tool's `run`, with
carry [".whl", "build/gpu_model"] and timeout_s 560 (estimated: about 4 minutes on an H200):

    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit; \
    nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; \
    PYTHONUNBUFFERED=1 timeout 500 python3 bench/gpu_floor.py --config build/gpu_model 2>&1 \
        | tee $OUT/gpu_floor.log
"""
import argparse, copy, json, os, shutil, statistics, subprocess, sys, time, traceback, warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODEL_DIR = '/tmp/gpu_floor_minilm'                  # the random-weight model is written here
WEIGHT_FILES = shutil.ignore_patterns('*.safetensors', '*.bin', '*.onnx', 'onnx', 'openvino',
                                      'README.md', 'data_config.json', '.gitattributes')
BERT_SCORE_PIN = '0.3.13'                            # pyproject.toml's dev pin
AIM = 0.8                                            # ours at least this fraction of the floor
T0 = time.perf_counter()


class Report:
    "The results so far, rewritten to `path` (atomically) after every entry, and each printed."
    def __init__(self, path:Path):
        self.path, self.data = path, {}
    def put(self, section:str, key:str, value):
        self.data.setdefault(section, {})[key] = value
        print(f'[{section}] {key}: {json.dumps(value, default=str)}', flush=True)
        self.write()
    def error(self, section:str, key:str, err:BaseException):
        lines = traceback.format_exception_only(type(err), err)
        self.put(section, key, {'error': ''.join(lines).strip()[-600:]})
    def write(self):
        tmp = self.path.with_suffix('.tmp')
        tmp.write_text(json.dumps(self.data, indent=1, default=str))
        os.replace(tmp, self.path)


def sync(device:str):
    "Wait for the device's queued work (a no-op on the CPU)."
    import torch
    if device.startswith('cuda'): torch.cuda.synchronize()


def median_times(fns:dict, repeats:int, device:str) -> dict:
    "Each callable's median, its run times (`repeats`, interleaved, synced) and last result."
    times, results = {name: [] for name in fns}, {}
    for _ in range(repeats):
        for name, fn in fns.items():
            sync(device)
            start = time.perf_counter()
            results[name] = fn()
            sync(device)
            times[name].append(time.perf_counter() - start)
    return {name: (statistics.median(ts), ts, results[name]) for name, ts in times.items()}


class Stopwatch:
    "Time spent per named stage: `lap(name)` syncs the device and adds the time since the last lap."
    def __init__(self, device:str):
        self.device, self.spent = device, {}
        sync(device)
        self.last = time.perf_counter()
    def lap(self, name:str):
        sync(self.device)
        now = time.perf_counter()
        self.spent[name] = self.spent.get(name, 0.0) + now - self.last
        self.last = now


def breakdown(runs:list[dict], e2e_s:float) -> dict:
    "Median seconds per stage over runs, each stage's share of their sum, and what e2e adds."
    stages = {name: statistics.median(run[name] for run in runs) for name in runs[0]}
    total = sum(stages.values())
    return {'stages': {name: {'s': round(s, 4), 'share': round(s / total, 3)}
                       for name, s in stages.items()},
            'sum_s': round(total, 4), 'e2e_s': round(e2e_s, 4),
            'e2e_minus_sum_s': round(e2e_s - total, 4)}


def build_model(config_dir:str) -> str:
    "A BertModel of the folder's config with seeded random weights, beside its tokenizer files."
    import torch
    from transformers import BertConfig, BertModel
    shutil.rmtree(MODEL_DIR, ignore_errors=True)
    shutil.copytree(config_dir, MODEL_DIR, ignore=WEIGHT_FILES)
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(MODEL_DIR)).save_pretrained(MODEL_DIR)
    return MODEL_DIR


def cah_pairs(n:int) -> tuple[list[str], list[str]]:
    "gpu_check.py's pairs: prompts filled with answer cards, drawn with numpy's seed 0."
    from cah_metrics.corpora import default_pack
    pack = default_pack()
    answers, prompts = [a['text'] for a in pack.answers], [p['text'] for p in pack.prompts]
    rng = np.random.default_rng(0)
    def draw(size):
        pick_p, pick_a = rng.integers(0, len(prompts), size), rng.integers(0, len(answers), size)
        return [prompts[i].replace('_', answers[j], 1) for i, j in zip(pick_p, pick_a)]
    preds, refs = draw(20000), draw(20000)
    if n > 20000: preds, refs = preds + draw(n - 20000), refs + draw(n - 20000)
    return preds[:n], refs[:n]


def padded_batches(tok, texts:list[str], batch_size:int, max_length:int, device:str):
    """The floor's input: texts tokenised, sorted by word pieces (longest first), padded per batch
    and already on the device; with the real word pieces and the padded slots."""
    import torch
    ids = tok(texts, truncation=True, max_length=max_length)['input_ids']
    order = np.argsort([-len(row) for row in ids], kind='stable')
    batches, slots = [], 0
    for start in range(0, len(texts), batch_size):
        rows = [ids[i] for i in order[start:start + batch_size]]
        input_ids = torch.full((len(rows), len(rows[0])), tok.pad_token_id, dtype=torch.long)
        mask = torch.zeros_like(input_ids)
        for k, row in enumerate(rows):
            input_ids[k, :len(row)] = torch.tensor(row)
            mask[k, :len(row)] = 1
        batches.append({'input_ids': input_ids.to(device), 'attention_mask': mask.to(device)})
        slots += input_ids.numel()
    return batches, sum(len(row) for row in ids), slots


def batched_tokenise_s(tok, texts:list[str], max_length:int, repeats:int) -> float:
    "Median seconds of one batched call of the fast tokenizer on all the texts (a CPU reference)."
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        tok(texts, truncation=True, max_length=max_length)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 4)


def forward_all(model, batches:list[dict], device:str, autocast=None):
    "The bare forward pass over every batch (no pooling, nothing copied back)."
    import contextlib, torch
    cast = (torch.autocast(device.split(':')[0], dtype=autocast) if autocast is not None
            else contextlib.nullcontext())
    with torch.inference_mode(), cast:
        for batch in batches: model(**batch)


def floor_variants(model, tok, texts, batch_size, max_length, device) -> dict:
    "Extra floor rows that change the numbers (precision) or the batch size: name -> callable."
    import torch
    batches = padded_batches(tok, texts, batch_size, max_length, device)[0]
    big = padded_batches(tok, texts, 512, max_length, device)[0]
    half = copy.deepcopy(model).half()
    def tf32():
        torch.backends.cuda.matmul.allow_tf32 = True
        try: forward_all(model, batches, device)
        finally: torch.backends.cuda.matmul.allow_tf32 = False
    rows = {'floor bf16 autocast (changes numbers)':
                lambda: forward_all(model, batches, device, torch.bfloat16),
            'floor fp16 autocast (changes numbers)':
                lambda: forward_all(model, batches, device, torch.float16),
            'floor fp16 weights (changes numbers)': lambda: forward_all(half, batches, device),
            'floor fp32, batch 512 (another batch size)': lambda: forward_all(model, big, device)}
    if device.startswith('cuda'): rows['floor TF32 matmuls (changes numbers)'] = tf32
    return rows


def rate_rows(timed:dict, count:int, unit:str) -> dict:
    "Timing rows: median seconds, each run's seconds, and the rate in `unit` per second."
    return {name: {'s': round(s, 4), 'runs_s': [round(t, 4) for t in ts],
                   f'{unit}_per_s': round(count / s)} for name, (s, ts, _) in timed.items()}


# ---------------------------------------------------------------- BERTScore
def bertscore_stages(metric, cands:list[str], refs:list[str], device:str) -> tuple[dict, object]:
    """Ours' BERTScore path (`BERTScore._best_matches`, `_encode`, then scoring) stage by stage with
    the package's own helpers, synced after each stage: seconds per stage, counts, the result."""
    import torch
    from cah_metrics.bertscore import _MIN_POSITIONS, _length_batches, _word_pieces, match_maxima
    from cah_metrics.embeddings import check_text
    watch, tok, mdl = Stopwatch(device), metric.tok, metric.mdl
    for i, text in enumerate(cands + refs): check_text(text, f'texts[{i}]', 'bertscore')
    watch.lap('validate')
    ids = {text: _word_pieces(tok, text) for text in dict.fromkeys(refs + cands)}
    watch.lap('tokenise (CPU)')
    batches, emb, slots, h2d, d2h = _length_batches(ids, metric.batch_size), {}, 0, 0, 0
    watch.lap('batch')
    with torch.inference_mode():
        for batch in batches:
            rows = [ids[text] for text in batch]
            rows += rows[-1:] * (-(-_MIN_POSITIONS // len(rows[0])) - len(rows))
            host = torch.tensor(rows)
            watch.lap('batch')
            x = host.to(device)
            watch.lap('host to device')
            out = mdl(x, attention_mask=torch.ones_like(x))[0]
            watch.lap('forward')
            unit = torch.nn.functional.normalize(out, dim=-1)[:len(batch)].double()
            watch.lap('normalise')
            vectors = unit.cpu().numpy()
            watch.lap('device to host')
            emb.update(zip(batch, vectors))
            watch.lap('collect')
            slots, h2d, d2h = slots + host.numel(), h2d + host.nbytes, d2h + vectors.nbytes
    pieces = {text: np.array(p, np.int64) for text, p in ids.items()}
    maxima = [match_maxima(emb[cand], emb[ref]) for cand, ref in zip(cands, refs)]
    watch.lap('greedy matching (CPU)')
    stats = {'cand': [pieces[cand] for cand in cands], 'refs': [[pieces[ref]] for ref in refs],
             'p_max': [[pair[0]] for pair in maxima], 'r_max': [[pair[1]] for pair in maxima]}
    result = metric.score_state(metric.reduce_items(stats))
    watch.lap('scoring (CPU)')
    real = sum(len(p) for p in ids.values())
    counts = {'distinct_texts': len(ids), 'batches': len(batches), 'real_word_pieces': real,
              'slots': slots, 'padding_ratio': round(slots / real, 4),
              'host_to_device_bytes': h2d, 'device_to_host_bytes': d2h}
    return watch.spent, counts, result


def bertscore_section(rep:Report, model, folder:str, preds:list[str], refs:list[str],
                      a:argparse.Namespace):
    import torch
    from cah_metrics.core import load
    sec, n, device = 'bertscore', len(preds), a.device
    def ours_metric(**kw):
        return load('bertscore', model=folder, use_gpu=device != 'cpu', progress=False, **kw)
    metric = ours_metric()
    rep.put(sec, 'ours_device', metric.device)
    texts = list(dict.fromkeys(refs + preds))
    batches, real, slots = padded_batches(metric.tok, texts, a.batch_size,
                                          metric.tok.model_max_length, device)
    rep.put(sec, 'floor_input', {
        'distinct_texts': len(texts), 'real_word_pieces': real, 'slots': slots,
        'padding_ratio': round(slots / real, 4), 'batched_fast_tokenizer_s': batched_tokenise_s(
            metric.tok, texts, metric.tok.model_max_length, a.repeats)})
    unused = iter([ours_metric() for _ in range(a.repeats)])     # built outside the timing
    def ours():
        fresh = next(unused)
        fresh.update(preds, references=refs)
        return fresh.compute()
    fns = {'ours': ours, 'floor fp32': lambda: forward_all(model, batches, device)}
    try:
        from bert_score import BERTScorer
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            theirs = BERTScorer(model_type=folder, num_layers=6, batch_size=a.batch_size,
                                device=device)
        fns['bert-score'] = lambda: theirs.score(preds, refs)
    except Exception as err: rep.error(sec, 'bert-score', err)
    warm = min(n, 500)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for name, fn in fns.items():                              # warm-up on a slice
            if name == 'ours': ours_metric().compute(preds[:warm], references=refs[:warm])
            elif name == 'bert-score': theirs.score(preds[:warm], refs[:warm])
            else: forward_all(model, batches[:4], device)
        timed = median_times(fns, a.repeats, device)
    rows = rate_rows(timed, n, 'pairs')
    for name, row in rows.items(): rep.put(sec, name, row)
    ours_s, floor_s = timed['ours'][0], timed['floor fp32'][0]
    rep.put(sec, 'ours_fraction_of_floor', {'fraction': round(floor_s / ours_s, 4),
                                            'aim': f'>= {AIM}', 'met': floor_s / ours_s >= AIM})
    if 'bert-score' in timed:
        rep.put(sec, 'bert-score_s_over_ours_s', round(timed['bert-score'][0] / ours_s, 3))

    runs = []
    for _ in range(a.repeats):
        spent, counts, copy_result = bertscore_stages(ours_metric(), preds, refs, device)
        runs.append(spent)
    ours_result = timed['ours'][2]
    diff = float(np.abs(np.asarray(copy_result.f1) - np.asarray(ours_result.f1)).max())
    forward = statistics.median(run['forward'] for run in runs)
    rep.put(sec, 'ours_breakdown', {**breakdown(runs, ours_s), **counts,
                                    'forward_stage_over_floor': round(forward / floor_s, 3),
                                    'copy_equals_ours_f1_max_abs_diff': diff})

    k = min(n, 2000)
    try:
        same = ours_metric(compat='bert-score').score(preds[:k], refs[:k])
        their_f1 = theirs.score(preds[:k], refs[:k])[2].numpy()
        rep.put(sec, 'agreement', {
            'pairs': k, 'ours_f1_mean': float(ours_result['f1']),
            "max_abs_f1_diff_ours_compat_bert-score_vs_bert-score":
                float(np.abs(np.asarray(same.f1) - their_f1).max())})
    except Exception as err: rep.error(sec, 'agreement', err)

    if time.perf_counter() - T0 > a.budget:
        return rep.put(sec, 'extras', 'skipped: over budget')
    extras = floor_variants(model, metric.tok, texts, a.batch_size, metric.tok.model_max_length,
                            device)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            fast = BERTScorer(model_type=folder, num_layers=6, batch_size=a.batch_size,
                              device=device, use_fast_tokenizer=True)
        extras['bert-score use_fast_tokenizer=True'] = lambda: fast.score(preds, refs)
    except Exception as err: rep.error(sec, 'bert-score use_fast_tokenizer=True', err)
    run_extras(rep, sec, extras, n, 'pairs', floor_s, a)


def run_extras(rep:Report, sec:str, extras:dict, n:int, unit:str, floor_s:float, a):
    "Time each extra row (one warm-up run each); a failing one is recorded and skipped."
    for name, fn in extras.items():
        try:
            fn()
            s, ts, _ = median_times({name: fn}, a.repeats, a.device)[name]
            rep.put(sec, name, {'s': round(s, 4), 'runs_s': [round(t, 4) for t in ts],
                                f'{unit}_per_s': round(n / s),
                                'floor_fp32_s_over_this': round(floor_s / s, 3)})
        except Exception as err: rep.error(sec, name, err)


# ---------------------------------------------------------------- sentence encoding
def encode_stages(enc, texts:list[str], batch_size:int, device:str) -> tuple[dict, dict, object]:
    """Ours' `Encoder.encode` path stage by stage (its clipping and length batches, then what
    sentence-transformers' encode does per batch), synced after each stage."""
    import torch
    from cah_metrics.embeddings import _length_batches, check_text, clip_text
    from cah_metrics.text import as_texts
    watch, st = Stopwatch(device), enc._st
    texts = as_texts(texts, 'texts', 'embeddings')
    limit = st.max_seq_length or 512
    texts = [clip_text(st.tokenizer, check_text(text, f'texts[{i}]', 'embeddings'), limit)
             for i, text in enumerate(texts)]
    watch.lap('validate and clip')
    batches = _length_batches(st, texts, batch_size)
    watch.lap('length sort (tokenises all, CPU)')
    out, real, slots, h2d, d2h = np.empty((len(texts), enc.dim), np.float32), 0, 0, 0, 0
    prepare = getattr(st, 'preprocess', None) or st.tokenize
    modules = list(st)
    with torch.inference_mode():
        for batch in batches:
            features = prepare([texts[i] for i in batch])
            watch.lap('tokenise (CPU)')
            mask = features['attention_mask']
            real, slots = real + int(mask.sum()), slots + mask.numel()
            h2d += sum(v.nbytes for v in features.values() if torch.is_tensor(v))
            features = {k: v.to(device) if torch.is_tensor(v) else v for k, v in features.items()}
            watch.lap('host to device')
            features = modules[0](features)
            watch.lap('forward')
            for module in modules[1:]: features = module(features)
            unit = torch.nn.functional.normalize(features['sentence_embedding'], p=2, dim=1)
            watch.lap('pool and normalise')
            vectors = unit.cpu()
            watch.lap('device to host')
            out[batch] = vectors.numpy()
            d2h += vectors.nbytes
            watch.lap('collect')
    counts = {'batches': len(batches), 'real_word_pieces': real, 'slots': slots,
              'padding_ratio': round(slots / real, 4), 'host_to_device_bytes': h2d,
              'device_to_host_bytes': d2h}
    return watch.spent, counts, out


def encode_section(rep:Report, model, folder:str, texts:list[str], a:argparse.Namespace):
    from cah_metrics.embeddings import Encoder
    sec, n, device = 'encode', len(texts), a.device
    enc = Encoder(folder, device=device)
    tok, limit = enc._st.tokenizer, enc._st.max_seq_length or 512
    batches, real, slots = padded_batches(tok, texts, a.batch_size, limit, device)
    rep.put(sec, 'floor_input', {
        'texts': n, 'real_word_pieces': real, 'slots': slots,
        'padding_ratio': round(slots / real, 4),
        'batched_fast_tokenizer_s': batched_tokenise_s(tok, texts, limit, a.repeats)})
    fns = {'ours': lambda: enc.encode(texts, batch_size=a.batch_size, progress=False),
           'floor fp32': lambda: forward_all(model, batches, device)}
    try:
        from sentence_transformers import SentenceTransformer
        theirs = SentenceTransformer(folder, device=device)
        fns['sentence-transformers'] = lambda: theirs.encode(
            texts, batch_size=a.batch_size, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False)
    except Exception as err: rep.error(sec, 'sentence-transformers', err)
    for fn in fns.values(): fn()                                  # warm-up (full size: quick)
    timed = median_times(fns, a.repeats, device)
    for name, row in rate_rows(timed, n, 'texts').items(): rep.put(sec, name, row)
    ours_s, floor_s = timed['ours'][0], timed['floor fp32'][0]
    rep.put(sec, 'ours_fraction_of_floor', {'fraction': round(floor_s / ours_s, 4),
                                            'aim': f'>= {AIM}', 'met': floor_s / ours_s >= AIM})
    ours_vectors = timed['ours'][2]
    if 'sentence-transformers' in timed:
        rep.put(sec, 'sentence-transformers_s_over_ours_s',
                round(timed['sentence-transformers'][0] / ours_s, 3))
        rep.put(sec, 'agreement', {'max_abs_diff_ours_vs_sentence-transformers': float(
            np.abs(ours_vectors - timed['sentence-transformers'][2]).max())})

    runs = []
    for _ in range(a.repeats):
        spent, counts, copy_vectors = encode_stages(enc, texts, a.batch_size, device)
        runs.append(spent)
    diff = float(np.abs(copy_vectors - ours_vectors).max())
    forward = statistics.median(run['forward'] for run in runs)
    rep.put(sec, 'ours_breakdown', {**breakdown(runs, ours_s), **counts,
                                    'forward_stage_over_floor': round(forward / floor_s, 3),
                                    'copy_equals_ours_max_abs_diff': diff})

    if time.perf_counter() - T0 > a.budget:
        return rep.put(sec, 'extras', 'skipped: over budget')
    run_extras(rep, sec, floor_variants(model, tok, texts, a.batch_size, limit, device), n,
               'texts', floor_s, a)


# ---------------------------------------------------------------- set-up
def prepare():
    "Here, before a device run: the model folder's small files and the wheels the device lacks."
    from importlib.metadata import version
    from cah_metrics.embeddings import model_path
    dest = ROOT / 'build' / 'gpu_model'
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(model_path(), dest, ignore=WEIGHT_FILES)
    print(f'{dest}: ' + ', '.join(sorted(p.name for p in dest.iterdir())))
    platforms = [arg for tag in ('manylinux_2_28_x86_64', 'manylinux_2_17_x86_64')
                 for arg in ('--platform', tag)]
    for name, pin in (('fastcore', version('fastcore')), ('bert-score', BERT_SCORE_PIN)):
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q', '--no-deps',
                        '--only-binary=:all:', '--python-version', '3.12', '--implementation',
                        'cp', *platforms, '-d', str(ROOT / '.whl'), f'{name}=={pin}'], check=True)
    print(f"{ROOT / '.whl'}: " + ', '.join(sorted(p.name for p in (ROOT / '.whl').iterdir())))


def summary(data:dict) -> dict:
    "The headline: each side's rate, ours as a fraction of the floor, ours' three largest stages."
    out = {}
    for sec, unit in (('bertscore', 'pairs'), ('encode', 'texts')):
        part = data.get(sec, {})
        rates = {name: row[f'{unit}_per_s'] for name, row in part.items()
                 if isinstance(row, dict) and f'{unit}_per_s' in row}
        stages = part.get('ours_breakdown', {}).get('stages', {})
        top = sorted(stages.items(), key=lambda item: -item[1]['s'])[:3]
        out[sec] = {f'{unit}_per_s': rates,
                    'ours_fraction_of_floor': part.get('ours_fraction_of_floor'),
                    'largest_stages': {name: stage['share'] for name, stage in top}}
    return out


def environment(device:str) -> dict:
    import torch
    from importlib.metadata import PackageNotFoundError, version
    env = {'python': sys.version.split()[0], 'cpus': os.cpu_count(), 'device': device,
           'gpu': torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
           'torch_threads': torch.get_num_threads()}
    for name in ('torch', 'transformers', 'tokenizers', 'sentence-transformers', 'bert-score',
                 'fastcore', 'numpy'):
        try: env[name] = version(name)
        except PackageNotFoundError: env[name] = 'missing'
    return env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--prepare', action='store_true', help='fetch what a device run carries')
    ap.add_argument('--device', default='cuda')
    ap.add_argument('--n', type=int, default=20000, help='pairs (BERTScore) and texts (encoding)')
    ap.add_argument('--batch-size', type=int, default=64)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--config', help="a folder with the model's config and tokenizer files "
                                     '(default: the bundled model, else build/gpu_model)')
    ap.add_argument('--budget', type=float, default=360,
                    help='seconds after which the extra rows are skipped')
    ap.add_argument('--only', choices=('bertscore', 'encode'), help='run one section')
    a = ap.parse_args()
    if a.prepare: return prepare()
    import torch
    from transformers import AutoModel
    out = Path(os.environ.get('OUT') or ROOT / 'bench' / 'results')
    out.mkdir(parents=True, exist_ok=True)
    rep = Report(out / 'gpu_floor.json')
    rep.put('run', 'environment', environment(a.device))
    config = a.config
    if config is None:
        try:
            from cah_metrics.embeddings import model_path
            config = model_path()
        except ImportError: config = str(ROOT / 'build' / 'gpu_model')
    folder = build_model(config)
    rep.put('run', 'setup', {'pairs': a.n, 'batch_size': a.batch_size, 'repeats': a.repeats,
                             'model': f'random weights (seed 0) in the shape of {config}',
                             'build_s': round(time.perf_counter() - T0, 1)})
    model = AutoModel.from_pretrained(folder).eval().to(a.device)
    preds, refs = cah_pairs(a.n)
    sections = {'bertscore': lambda: bertscore_section(rep, model, folder, preds, refs, a),
                'encode': lambda: encode_section(rep, model, folder, preds, a)}
    for name, run in sections.items():
        if a.only and name != a.only: continue
        try: run()
        except Exception as err:
            rep.error(name, 'failed', err)
            traceback.print_exc()
    if a.device.startswith('cuda'):
        rep.put('run', 'peak_gpu_memory_mib', round(torch.cuda.max_memory_allocated() / 2**20))
    rep.put('run', 'total_s', round(time.perf_counter() - T0, 1))
    rep.put('run', 'summary', summary(rep.data))
    print(json.dumps(rep.data, indent=1, default=str))
    return 0


if __name__ == '__main__': sys.exit(main())
