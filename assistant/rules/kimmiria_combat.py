"""KIMMIRIA missile fire and melee as pure functions: fighters + facts + dice -> events.

The geometry (who touches whom, across or a-corner; who shoots whom) is handed in, so these
functions can be checked against the text's sentences with hand-made facts. Sentences quoted
are from the KIMMIRIA text.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from assistant.rules.dice import Dice
from assistant.rules.errors import ScenarioError
from assistant.rules.events import Event, Prompt, event
from assistant.rules.kimmiria_board import ACROSS, CORNER, Fighter


class MeleeChoiceError(ScenarioError):
    """A chosen melee target the rules do not allow; the message names the figures."""


class MissileTargetError(ScenarioError):
    """A missile target list the rules do not allow; the message names the figures."""


@dataclass(frozen=True)
class TerrainDefence:
    bonus: int
    except_classes: tuple[str, ...] = ()            # defenders who never get it
    unless_attacker_classes: tuple[str, ...] = ()   # attackers who cancel it


@dataclass(frozen=True)
class CombatRules:
    unpainted_penalty: int = -1
    defence: Mapping[str, TerrainDefence] = field(default_factory=lambda: {
        "woods": TerrainDefence(1, ("giant", "cavalry", "artillery")),
        "rocks": TerrainDefence(1, (), ("hero",))})
    defence_bonus_in: tuple[str, ...] = ("melee",)
    kills_per_figure: int = 1
    max_gang: int = 6


@dataclass(frozen=True)
class MissileType:
    """What a shooter type does: `wins_ties` (WIZARDS), `ignores_armor` (ARTILLERY), `blast`."""
    attacks: int = 1
    order: int = 1
    wins_ties: bool = False
    ignores_armor: bool = False
    blast: int = 1


@dataclass(frozen=True)
class Shot:
    shooter: str
    targets: tuple[str, ...]        # the chosen target first, then the blast's extra figures


def painted_modifier(fighter: Fighter, rules: CombatRules) -> int:
    """"at a -1 penalty to any and all die rolls that the unpainted figure makes"."""
    return 0 if fighter.painted else rules.unpainted_penalty


def defence_bonus(defender: Fighter, attacker: Fighter, rules: CombatRules, kind: str) -> int:
    """Woods / rocks +1 for the figure defending in them (kind: "melee" or "missile")."""
    if kind not in rules.defence_bonus_in:
        return 0
    rule = rules.defence.get(defender.terrain)
    if rule is None or defender.cls in rule.except_classes or attacker.cls in rule.unless_attacker_classes:
        return 0
    return rule.bonus


def _mods(parts: Mapping[str, int]) -> dict[str, int]:
    return {k: v for k, v in parts.items() if v}


# ----------------------------------------------------------------- missiles

@dataclass(frozen=True)
class MissileOutcome:
    events: tuple[Event, ...]
    fallen: tuple[str, ...]         # removed after all missiles, in the order they fell


def order_shots(shots: Iterable[Shot], fighters: Mapping[str, Fighter], types: Mapping[str, MissileType],
                attacker_side: str | None, scene_order: Sequence[str]) -> list[Shot]:
    """"arrows, cross-bow bolts, rocks ... then magic from WIZARDS, last weapons from ARTILLERY"."""
    index = {fid: i for i, fid in enumerate(scene_order)}
    return sorted(shots, key=lambda s: (types[fighters[s.shooter].type].order,
                                        0 if fighters[s.shooter].side == attacker_side else 1,
                                        index.get(s.shooter, len(index))))


def check_blast(shot: Shot, fighters: Mapping[str, Fighter], mtype: MissileType,
                contacts: Mapping[str, Mapping[str, str]]) -> None:
    """Wizards: up to two enemies next to one another; artillery: up to three all touching."""
    shooter = fighters[shot.shooter]
    if not shot.targets:
        raise MissileTargetError(f"{shot.shooter}: no target")
    if len(shot.targets) > mtype.blast:
        raise MissileTargetError(f"{shot.shooter}: a {shooter.type} hits at most {mtype.blast} figure(s), "
                                 f"got {', '.join(shot.targets)}")
    if len(set(shot.targets)) != len(shot.targets):
        raise MissileTargetError(f"{shot.shooter}: a figure is named twice in {', '.join(shot.targets)}")
    for tid in shot.targets:
        if tid not in fighters:
            raise MissileTargetError(f"{shot.shooter}: unknown target {tid!r}")
        if fighters[tid].side == shooter.side:
            raise MissileTargetError(f"{shot.shooter}: {tid} is on its own side")
    # The figures hit must form one touching bunch (each touches another one of them).
    chosen = set(shot.targets)
    reached, frontier = {shot.targets[0]}, [shot.targets[0]]
    while frontier:
        here = frontier.pop()
        for other in contacts.get(here, {}):
            if other in chosen and other not in reached:
                reached.add(other)
                frontier.append(other)
    if reached != chosen:
        raise MissileTargetError(f"{shot.shooter}: {', '.join(sorted(chosen - reached))} "
                                 f"does not touch {shot.targets[0]}")


def blast_extras(target: str, fighters: Mapping[str, Fighter], contacts: Mapping[str, Mapping[str, str]],
                 count: int, exclude: Iterable[str] = ()) -> tuple[str, ...]:
    """Default extra figures for a blast: the target's friends touching the bunch, nearest links first."""
    side = fighters[target].side
    excluded = set(exclude)
    chosen = [target]
    while len(chosen) < count + 1:
        options = [o for c in chosen for o, kind in sorted(contacts.get(c, {}).items(),
                                                           key=lambda kv: (kv[1] != ACROSS, kv[0]))
                   if o in fighters and fighters[o].side == side and o not in chosen and o not in excluded]
        if not options:
            break
        chosen.append(options[0])
    return tuple(chosen[1:])


def resolve_missiles(shots: Sequence[Shot], fighters: Mapping[str, Fighter],
                     types: Mapping[str, MissileType], dice: Dice, rules: CombatRules = CombatRules(),
                     resting: Iterable[str] = ()) -> MissileOutcome:
    """Fire every shot (already in firing order); the fallen are removed only after all of them.

    "The attacker rolls one die, the defender rolls one die for each figure and adds his Armor
    Plus number ... Ties go to the defender, except with magic attacks by WIZARDS ... ARTILLERY
    attacks are not effected by Armor Plus. Remove the figures that lost against the missiles
    AFTER everyone has fired their missiles."
    """
    events: list[Event] = []
    fallen: list[str] = []
    resting = set(resting)
    for shot in shots:
        shooter = fighters[shot.shooter]
        mtype = types[shooter.type]
        if shot.shooter in resting:
            events.append(event("missile_skipped", f"{shot.shooter} flew over water and may not attack this turn.",
                                shooter=shot.shooter, reason="wizard_flight"))
            continue
        for attack in range(mtype.attacks):
            a_die = dice.roll(6, "missile attack", who=shot.shooter)
            a_mods = _mods({"unpainted": painted_modifier(shooter, rules)})
            a_total = a_die + sum(a_mods.values())
            for tid in shot.targets:
                target = fighters[tid]
                d_die = dice.roll(6, "missile defence", who=tid)
                d_mods = _mods({
                    "armor_plus": 0 if mtype.ignores_armor else target.armor_plus,
                    "terrain": defence_bonus(target, shooter, rules, "missile"),
                    "unpainted": painted_modifier(target, rules)})
                d_total = d_die + sum(d_mods.values())
                hit = a_total > d_total or (mtype.wins_ties and a_total == d_total)
                tie_note = " (wizards win ties)" if hit and a_total == d_total else ""
                already = tid in fallen
                if hit and not already:
                    fallen.append(tid)
                text = (f"{shot.shooter} ({shooter.type}) rolls {a_total} against {tid}'s {d_total}: "
                        + (f"{tid} has already fallen." if already else
                           f"{tid} falls{tie_note}." if hit else f"{tid} survives."))
                events.append(event("missile_hit" if hit else "missile_miss", text,
                                    shooter=shot.shooter, target=tid, attack=attack + 1,
                                    attack_die=a_die, attack_mods=a_mods, attack_total=a_total,
                                    defence_die=d_die, defence_mods=d_mods, defence_total=d_total,
                                    already_fallen=already))
    if fallen:
        events.append(event("removed", f"Remove {', '.join(fallen)}: everyone has fired, now the fallen go.",
                            figures=list(fallen), cause="missile"))
    return MissileOutcome(tuple(events), tuple(fallen))


# ----------------------------------------------------------------- melee

@dataclass(frozen=True)
class MeleeOutcome:
    events: tuple[Event, ...]
    removed: tuple[str, ...]
    locked: tuple[tuple[str, str], ...]         # "fight it out again next turn"
    dice: Mapping[str, int]                     # the die placed next to each figure
    prompts: tuple[Prompt, ...]                 # the attacker's free moves


def engaged_fighters(contacts: Mapping[str, Mapping[str, str]]) -> list[str]:
    return [fid for fid, touching in contacts.items() if touching]


def melee_candidates(fid: str, contacts: Mapping[str, Mapping[str, str]], alive: set[str],
                     gang: Mapping[str, int], rules: CombatRules,
                     exclude: Iterable[str] = ()) -> tuple[list[str], str | None]:
    """"you attack the figure across from you first. If there is no figure across, you may attack one a-corner"."""
    excluded = set(exclude)
    touching = {t: k for t, k in contacts.get(fid, {}).items()
                if t in alive and t not in excluded and gang.get(t, 0) < rules.max_gang}
    across = [t for t, k in touching.items() if k == ACROSS]
    if across:
        return across, ACROSS
    corner = [t for t, k in touching.items() if k == CORNER]
    return corner, (CORNER if corner else None)


def locked_partners(locked: Iterable[Sequence[str]], placed: Mapping[str, int],
                    contacts: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Pairs that tied last turn and still touch: each must fight the other first."""
    partner: dict[str, str] = {}
    for a, b in locked:
        if a in placed and b in placed and b in contacts.get(a, {}):
            partner[a], partner[b] = b, a
    return partner


def check_choices(choices: Mapping[str, str], placed: Mapping[str, int],
                  contacts: Mapping[str, Mapping[str, str]]) -> None:
    for fid, target_id in choices.items():
        if fid not in placed:
            raise MeleeChoiceError(f"melee choice for {fid!r}: that figure is not in a fight")
        if target_id not in contacts.get(fid, {}):
            raise MeleeChoiceError(f"melee choice {fid} -> {target_id}: {fid} does not touch {target_id!r} "
                                   f"(it touches {', '.join(sorted(contacts[fid]))})")


@dataclass
class _Melee:
    """What the melee has done so far, while the figures strike in turn order."""
    fighters: Mapping[str, Fighter]
    contacts: Mapping[str, Mapping[str, str]]
    rules: CombatRules
    placed: dict[str, int]
    order_index: dict[str, int]
    alive: set[str]
    events: list[Event]
    kills: dict[str, int] = field(default_factory=dict)
    gang: dict[str, int] = field(default_factory=dict)
    new_locks: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    killed_by: dict[str, str] = field(default_factory=dict)

    def total(self, f: Fighter, die: int, extra: Mapping[str, int]) -> tuple[int, dict[str, int]]:
        mods = _mods({"fv": f.fv, "unpainted": painted_modifier(f, self.rules), **extra})
        return die + sum(mods.values()), mods


def _skip_reason(m: _Melee, fid: str) -> Event | None:
    if fid not in m.alive:
        return event("melee_skipped", f"{fid} has fallen and does not strike back.",
                     figure=fid, die=m.placed[fid], reason="fallen", killed_by=m.killed_by.get(fid))
    if m.kills.get(fid, 0) >= m.rules.kills_per_figure:
        return event("melee_skipped", f"{fid} has already killed a figure this melee.",
                     figure=fid, die=m.placed[fid], reason="already_killed")
    return None


def _candidates(m: _Melee, fid: str, forced: str | None) -> tuple[list[str], str, Event | None]:
    """Whom `fid` may attack now: its locked partner, else "the figure across from you first"."""
    if forced is not None and forced in m.alive:
        return [forced], m.contacts[fid][forced], None
    # A pair that tied this turn fights again next turn, not twice now ("Y and G are locked in
    # melee for next round", and Y attacks F instead).
    tied_now = {b if a == fid else a for a, b in m.new_locks if fid in (a, b)}
    candidates, contact = melee_candidates(fid, m.contacts, m.alive, m.gang, m.rules, tied_now)
    if not candidates and tied_now & m.alive:
        return [], contact, event("melee_locked", f"{fid} ({m.placed[fid]}) is locked with "
                                  f"{', '.join(sorted(tied_now & m.alive))} until next turn.",
                                  figure=fid, die=m.placed[fid], locked_with=sorted(tied_now & m.alive))
    return list(candidates), contact, None


def _pick(m: _Melee, fid: str, candidates: Sequence[str], contact: str, choices: Mapping[str, str],
          forced: str | None) -> str:
    if fid in choices:
        if choices[fid] not in candidates:
            raise MeleeChoiceError(
                f"melee choice {fid} -> {choices[fid]}: allowed {', '.join(sorted(candidates))} "
                f"({'locked partner' if forced else contact})")
        return choices[fid]
    # The easiest fight first: the lowest die + Fighting Value, then scene order.
    return min(candidates, key=lambda t: (m.placed.get(t, 0) + m.fighters[t].fv, m.order_index.get(t, 0)))


def _fight(m: _Melee, fid: str, target_id: str, contact: str) -> Event:
    """"Add the die roll to the Fighting Value for each figure. Compare the two numbers. Highest number wins."""
    me, target = m.fighters[fid], m.fighters[target_id]
    m.gang[target_id] = m.gang.get(target_id, 0) + 1
    my_total, my_mods = m.total(me, m.placed[fid], {})
    their_total, their_mods = m.total(target, m.placed.get(target_id, 0),
                                      {"terrain": defence_bonus(target, me, m.rules, "melee")})
    facts = dict(figure=fid, target=target_id, contact=contact, die=m.placed[fid], mods=my_mods,
                 total=my_total, target_die=m.placed.get(target_id), target_mods=their_mods,
                 target_total=their_total)
    where = "across" if contact == ACROSS else "a-corner"
    if my_total == their_total:
        m.new_locks.append((fid, target_id))
        return event("melee_tie", f"{fid} ({my_total}) attacks {target_id} ({their_total}) {where}: a tie, nobody "
                     "dies; both stay in place and fight again next turn.", **facts)
    winner, loser = (fid, target_id) if my_total > their_total else (target_id, fid)
    if m.kills.get(winner, 0) >= m.rules.kills_per_figure:
        return event("melee_repulsed", f"{winner} beats {loser} but has already killed a figure; "
                     f"{loser} survives.", winner=winner, loser=loser, **facts)
    m.kills[winner] = m.kills.get(winner, 0) + 1
    m.alive.discard(loser)
    m.removed.append(loser)
    m.killed_by[loser] = winner
    return event("melee_kill", f"{fid} ({my_total}) attacks {target_id} ({their_total}) {where}: {winner} kills "
                 f"{loser}.", winner=winner, loser=loser, **facts)


def resolve_melee(fighters: Mapping[str, Fighter], contacts: Mapping[str, Mapping[str, str]],
                  attacker_side: str | None, dice: Dice, rules: CombatRules = CombatRules(),
                  scene_order: Sequence[str] = (), choices: Mapping[str, str] | None = None,
                  locked: Iterable[Sequence[str]] = (), positions: Mapping[str, object] | None = None
                  ) -> MeleeOutcome:
    """Every engaged figure fights once, highest placed die first; `contacts` are ENEMY contacts.

    "Roll one die for each figure involved in the fight. Put the die next to the figure. After all
    the figures have their dice rolled, the highest number rolled (usually sixes) goes and attacks
    first. Add the die roll to the Fighting Value for each figure. Compare the two numbers.
    Highest number wins." Equal dice: the attacker's figures first ("would normally go first"),
    then scene order. The die as rolled sets the order; modifiers count in the totals.
    """
    choices = dict(choices or {})
    order_index = {fid: i for i, fid in enumerate(scene_order or sorted(fighters))}
    engaged = sorted(engaged_fighters(contacts),
                     key=lambda f: (0 if fighters[f].side == attacker_side else 1, order_index.get(f, 0)))
    placed = {fid: dice.roll(6, "melee", who=fid) for fid in engaged}
    turn_order = sorted(engaged, key=lambda f: (-placed[f], 0 if fighters[f].side == attacker_side else 1,
                                                order_index.get(f, 0)))
    partner = locked_partners(locked, placed, contacts)
    check_choices(choices, placed, contacts)
    if not engaged:
        return MeleeOutcome((event("melee_none", "No figure touches an enemy: there is no melee."),), (), (), {}, ())
    m = _Melee(fighters, contacts, rules, placed, order_index, set(fighters),
               [event("melee_dice", "Dice placed: " + ", ".join(f"{f} {placed[f]}" for f in turn_order) + ".",
                      dice=dict(placed), order=list(turn_order))])
    for fid in turn_order:
        skipped = _skip_reason(m, fid)
        if skipped:
            m.events.append(skipped)
            continue
        forced = partner.get(fid)
        candidates, contact, locked_now = _candidates(m, fid, forced)
        if locked_now:
            m.events.append(locked_now)
            continue
        if not candidates:
            m.events.append(event("melee_no_target", f"{fid} ({placed[fid]}) has no target left.",
                                  figure=fid, die=placed[fid]))
            continue
        m.events.append(_fight(m, fid, _pick(m, fid, candidates, contact, choices, forced), contact))
    locks = tuple(p for p in m.new_locks if p[0] in m.alive and p[1] in m.alive)
    if m.removed:
        m.events.append(event("removed", f"Remove {', '.join(m.removed)}.", figures=list(m.removed), cause="melee"))
    prompts = free_move_prompts(m.removed, m.killed_by, fighters, contacts, m.alive, attacker_side, locks, positions)
    return MeleeOutcome(tuple(m.events), tuple(m.removed), locks, placed, prompts)


def free_move_prompts(removed: Sequence[str], killed_by: Mapping[str, str], fighters: Mapping[str, Fighter],
                      contacts: Mapping[str, Mapping[str, str]], alive: set[str], attacker_side: str | None,
                      locks: Sequence[tuple[str, str]], positions: Mapping[str, object] | None = None
                      ) -> tuple[Prompt, ...]:
    """"the Attacking player gets a free move into any of the spaces left empty by defeated enemy
    figures. You may only move one figure one space into the defeated enemies space"."""
    locked = {f for pair in locks for f in pair}
    prompts = []
    for fallen in removed:
        if fighters[fallen].side == attacker_side:
            continue
        killer = killed_by.get(fallen)
        nearby = [f for f in contacts.get(fallen, {}) if f in alive and f not in locked
                  and fighters[f].side == attacker_side]
        if killer in nearby:
            nearby.remove(killer)
            nearby.insert(0, killer)
        if not nearby:
            continue
        data = {"into": fallen, "killer": killer if killer in nearby else None}
        if positions and fallen in positions:
            data["at"] = positions[fallen]
        prompts.append(Prompt("free_move", f"{attacker_side} may move one of {', '.join(nearby)} one space into "
                              f"{fallen}'s empty space.", options=tuple(nearby), data=data))
    return tuple(prompts)
