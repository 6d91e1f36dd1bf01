"""Tuning a strategy family's parameters against a panel of opponents, and confirming the result.

The objective of a candidate (a family with concrete parameter values) is
its paired result over the panel: against each opponent it plays
``oklasim.match`` on the same deals in every seating, and by ``aggregate``
the opponents' figures are averaged with equal weight (``mean``) or the
worst of them counts (``min``: the candidate is as good as against its
hardest opponent). The result is, by ``objective``,
the points/hand difference on independent hands (``points``) or the share
of games to the rules' target score won (``games``, a deal then being a
game seed: game ``g`` is dealt alike in every seating). The panel may name
the shipped panel of styles, ``panel`` (``tune_space.PANEL``).

Search: Optuna's TPE sampler proposes candidates one at a time; each plays
a race of rungs, rung ``k`` ending at ``hands_per_rung * 2**k`` deals
(hands or games) per opponent, and after every rung but the last Optuna's
successive halving pruner stops it unless it is in the better half of the candidates that
reached that rung. Every candidate plays the same deals at a rung, so they
are compared on common cards. The study lives in an Optuna journal file in
the tune's folder; an interrupted tune rerun with the same arguments
continues where it stopped and ends exactly as an uninterrupted one.

Confirmation: the best candidate that played every rung and the baseline
(the family's defaults, with the fixed values) are measured again on fresh
deals whose seeds the search never used; the report gives both objectives,
the gain on paired deals and the per-opponent figures with 95% intervals
(under ``min``, the worst case over the panel too).

Determinism: trials run one after another; every deal seed is derived from
the tune seed and the rung (or "held out") and the opponent, and the
sampler proposing candidate ``n`` is seeded from the tune seed and ``n``,
never from time or from a sampler state that an interruption would lose.
"""

from __future__ import annotations

import fcntl
import functools
import json
import time
import warnings
from collections.abc import Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
import optuna
from optuna.trial import TrialState

from oklasim.analysis.match import match
from oklasim.analysis.stats import mean_ci, paired_difference
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.runs.storage import atomic_write_bytes, read_json
from oklasim.strategies.registry import Strategy
from oklasim.studies.tune_result import OpponentFigures, TuneResult
from oklasim.studies.tune_spec import REDUCTION_FACTOR, TuneSpec, check_count

SPEC_FILE = "tune.json"
JOURNAL_FILE = "study.journal"
LOCK_FILE = ".lock"
RESULT_JSON = "result.json"
RESULT_MD = "result.md"
STARTUP_TRIALS = 10  # random candidates before TPE models the results (Optuna's default)
FINISHED = (TrialState.COMPLETE, TrialState.PRUNED)  # an interrupted trial ends FAIL (or stays RUNNING)


def default_folder(spec: TuneSpec) -> Path:
    """Where a tune without --out keeps its study: the same arguments find the same folder again."""
    return Path("runs") / "tune" / f"{spec.family}-{spec.digest()}"


# -- playing candidates -------------------------------------------------------------------------------


def play(spec: TuneSpec, strategy: Strategy, opponent: int, deals: int, seed: int,
         workers: int | None) -> np.ndarray:
    """The strategy's result on each deal against a panel opponent, in the objective's terms."""
    games = spec.kind.games
    result = match(strategy, spec.panel[opponent], spec.rules, hands=None if games else deals,
                   games=deals if games else None, seed=seed, workers=workers, strategy_paths=spec.strategy_paths)
    return result.game_wins if games else result.deal_nets


def _race(spec: TuneSpec, trial: optuna.Trial, workers: int | None) -> float:
    """Play a trial's candidate rung after rung, reporting to Optuna; raises TrialPruned when it stops it."""
    candidate = spec.strategy({d.name: d.suggest(trial) for d in spec.dimensions})
    nets: list[list[np.ndarray]] = [[] for _ in spec.panel]
    played = 0
    for rung, deals in enumerate(spec.rung_deals()):
        for i in range(len(spec.panel)):
            nets[i].append(play(spec, candidate, i, deals - played, spec.search_seed(rung, i), workers))
        played = deals
        means = [np.concatenate(n).mean() for n in nets]
        if spec.over_panel.over_baseline:
            means = [m - _baseline_mean(spec, rung, i, workers) for i, m in enumerate(means)]
        value = spec.over_panel.of_values(means)
        trial.report(value, played)
        if rung < spec.rungs - 1 and trial.should_prune():
            raise optuna.TrialPruned()
    return value


@functools.cache
def _baseline_mean(spec: TuneSpec, rung: int, opponent: int, workers: int | None) -> float:
    """The defaults' mean result on the search's deals up to ``rung`` against one opponent: the same for every
    candidate, so played once per process (and again after a resume)."""
    starts = (0, *spec.rung_deals())
    nets = [play(spec, spec.baseline(), opponent, starts[k + 1] - starts[k], spec.search_seed(k, opponent), workers)
            for k in range(rung + 1)]
    return float(np.concatenate(nets).mean())


# -- the study on disk --------------------------------------------------------------------------------


@contextmanager
def _folder_lock(folder: Path):
    """One tune per folder at a time: a resume must know that an unfinished trial is not still running."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / LOCK_FILE, "w")
    except OSError as exc:
        raise OklasimError(f"cannot write in {folder}: {exc.strerror}") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OklasimError(f"another oklasim tune is working in {folder}") from None
        yield


def _check_folder(spec: TuneSpec, folder: Path) -> None:
    """Write the spec into a new folder; refuse a folder that holds another tune."""
    path = folder / SPEC_FILE
    if path.is_file():
        stored = read_json(path, f"delete {folder} to start again")
        if stored != spec.identity():
            raise OklasimError(f"{folder} holds a different tune (see {path}); give another --out")
    elif any(p.name != LOCK_FILE for p in folder.iterdir()):
        raise OklasimError(f"{folder} holds something else than a tune (no {SPEC_FILE}); give another --out")
    else:
        atomic_write_bytes(path, json.dumps(spec.identity(), indent=2, sort_keys=True).encode())


def open_study(spec: TuneSpec, folder: Path | None):
    """The study to continue, in the folder's journal (in memory without a folder).

    An interrupted trial (failed, or left running by a kill) must not count:
    Optuna cannot delete it and its pruner would still weigh its rungs, so
    the finished trials are copied into a new *generation* of the study,
    which then holds exactly what an uninterrupted run would hold. A
    generation is used only once it is marked ready (the copy completed).
    """
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # the progress bar and the report say what matters
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # multivariate TPE
    if folder is None:
        storage = optuna.storages.InMemoryStorage()
    else:
        storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(folder / JOURNAL_FILE)))
    pruner = optuna.pruners.SuccessiveHalvingPruner(min_resource=spec.hands_per_rung, reduction_factor=REDUCTION_FACTOR)
    names = optuna.get_all_study_names(storage)
    ready = [s for s in (optuna.load_study(study_name=n, storage=storage, pruner=pruner) for n in names)
             if s.user_attrs.get("ready")]
    latest = max(ready, key=lambda s: int(s.study_name.rsplit("-", 1)[1]), default=None)
    if latest is not None and not any(t.state in (TrialState.RUNNING, TrialState.FAIL) for t in latest.trials):
        return latest
    study = optuna.create_study(storage=storage, study_name=f"search-{len(names)}", direction="maximize", pruner=pruner)
    finished = [t for t in latest.trials if t.state in FINISHED] if latest is not None else []
    study.add_trials(finished)
    if not finished:  # the defaults first, unless a range given leaves one out
        baseline = dict(spec.baseline().values)
        proposal = {d.name: d.proposal(baseline[d.name]) for d in spec.dimensions}
        if None not in proposal.values():
            study.enqueue_trial(proposal)
    study.set_user_attr("ready", True)
    return study


def finished_trials(study: optuna.Study) -> list[optuna.trial.FrozenTrial]:
    return [t for t in study.trials if t.state in FINISHED]


def run_trial(spec: TuneSpec, study: optuna.Study, workers: int | None) -> None:
    """Propose, play and record one candidate. On any interruption the trial is recorded as failed, so no
    trial is left running on disk; the next run replaces it (see ``open_study``)."""
    n = len(finished_trials(study))
    study.sampler = optuna.samplers.TPESampler(
        seed=int(spec.sampler_seed(n) % 2**32), multivariate=True, n_startup_trials=STARTUP_TRIALS
    )
    trial = study.ask()
    try:
        value = _race(spec, trial, workers)
    except optuna.TrialPruned:
        study.tell(trial, state=TrialState.PRUNED)
        return
    except BaseException:
        study.tell(trial, state=TrialState.FAIL)
        raise
    study.tell(trial, value)


# -- held-out confirmation and the result -------------------------------------------------------------


def confirm(spec: TuneSpec, values: dict[str, float], deals: int, workers: int | None,
            progress: bool = False) -> tuple[OpponentFigures, ...]:
    """The tuned candidate and the baseline against every opponent on the same fresh deals."""
    from tqdm import tqdm

    tuned, baseline = spec.strategy(values), spec.baseline()
    figures = []
    for i, opponent in enumerate(tqdm(spec.panel, desc="held-out check", unit=" opponent",
                                         disable=None if progress else True)):
        mine, theirs = (play(spec, s, i, deals, spec.held_out_seed(i), workers) for s in (tuned, baseline))
        gain = paired_difference(mine, theirs)  # the same deals: the luck cancels
        figures.append(OpponentFigures(opponent, mean_ci(mine), mean_ci(theirs), gain))
    return tuple(figures)


def tune(family: str, against: str | Sequence[str], rules: Rules | str | None = None, budget: int = 20, seed: int = 0,
         params: dict[str, tuple[float, float] | None] | None = None, fixed: dict[str, float] | None = None,
         out: str | Path | None = None, workers: int | None = None, hands_per_rung: int = 1000, rungs: int = 4,
         held_out: int = 20_000, strategy_paths: Sequence[str] = (), progress: bool = False,
         objective: str = "points", aggregate: str = "mean") -> TuneResult:
    """Tune ``family`` against the panel ``against``; see the module doc and ``run_tune``.

    ``params`` names the parameters to search (None: the declared range;
    a (low, high) pair narrows it), by default every parameter with a range;
    ``fixed`` sets others.
    """
    spec = TuneSpec.create(family, against, rules, params, fixed, seed, hands_per_rung, rungs, strategy_paths,
                           objective, aggregate)
    return run_tune(spec, budget, out, workers, held_out, progress)


def run_tune(spec: TuneSpec, budget: int, out: str | Path | None = None, workers: int | None = None,
             held_out: int = 20_000, progress: bool = False) -> TuneResult:
    """Search until ``budget`` candidates (the baseline first) have finished, then check the best on held-out deals.

    With ``out`` the study is kept in that folder and a rerun continues it,
    with a larger budget too; the result is written there as result.json
    and result.md. Without it the study lives in memory.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise OklasimError(f"the budget is a number of trials, at least 1; got {budget!r}")
    check_count(held_out, 2, "held-out deals")
    folder = Path(out) if out is not None else None
    started = time.perf_counter()
    with _folder_lock(folder) if folder else nullcontext():
        if folder:
            _check_folder(spec, folder)
        study = open_study(spec, folder)
        _search(spec, study, budget, workers, progress)
        best = study.best_trial  # among the candidates that played every rung
        values = dict(spec.strategy(spec.values(best.params)).values)
        opponents = confirm(spec, spec.values(best.params), held_out, workers, progress)
        finished = finished_trials(study)
        trials = {"finished": len(finished), "complete": sum(t.state == TrialState.COMPLETE for t in finished),
                  "pruned": sum(t.state == TrialState.PRUNED for t in finished), "best": best.number,
                  "search_value": best.value}
        history = tuple({"number": t.number, "state": t.state.name.lower(), "params": spec.values(t.params),
                         "objective_by_deals": t.intermediate_values} for t in finished)
        result = TuneResult(spec, values, dict(spec.baseline().values), opponents, trials, held_out,
                            time.perf_counter() - started, history)
        if folder:
            atomic_write_bytes(folder / RESULT_JSON, json.dumps(result.as_dict(), indent=2).encode())
            atomic_write_bytes(folder / RESULT_MD, result.markdown().encode())
    return result


def _search(spec: TuneSpec, study: optuna.Study, budget: int, workers: int | None, progress: bool) -> None:
    from tqdm import tqdm

    done = len(finished_trials(study))
    with tqdm(total=budget, initial=min(done, budget), desc=f"tune {spec.family}", unit=" trial",
              disable=None if progress else True, dynamic_ncols=True) as bar:
        while done < budget:
            run_trial(spec, study, workers)
            done += 1
            bar.update()
            bar.set_postfix(best=f"{study.best_value:+.3f}")
