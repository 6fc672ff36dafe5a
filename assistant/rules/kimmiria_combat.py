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
    partner: dict[str, str] = {}
    for pair in locked:
        a, b = pair
        if a in placed and b in placed and b in contacts.get(a, {}):
            partner[a], partner[b] = b, a
    for fid, target_id in choices.items():
        if fid not in placed:
            raise MeleeChoiceError(f"melee choice for {fid!r}: that figure is not in a fight")
        if target_id not in contacts.get(fid, {}):
            raise MeleeChoiceError(f"melee choice {fid} -> {target_id}: {fid} does not touch {target_id!r} "
                                   f"(it touches {', '.join(sorted(contacts[fid]))})")

    alive = set(fighters)
    kills: dict[str, int] = {}
    gang: dict[str, int] = {}
    new_locks: list[tuple[str, str]] = []
    removed: list[str] = []
    killed_by: dict[str, str] = {}
    if not engaged:
        return MeleeOutcome((event("melee_none", "No figure touches an enemy: there is no melee."),), (), (), {}, ())
    events: list[Event] = [event("melee_dice", "Dice placed: " + ", ".join(f"{f} {placed[f]}" for f in turn_order)
                                 + ".", dice=dict(placed), order=list(turn_order))]

    def total(f: Fighter, die: int, extra: Mapping[str, int]) -> tuple[int, dict[str, int]]:
        mods = _mods({"fv": f.fv, "unpainted": painted_modifier(f, rules), **extra})
        return die + sum(mods.values()), mods

    for fid in turn_order:
        me = fighters[fid]
        if fid not in alive:
            events.append(event("melee_skipped", f"{fid} has fallen and does not strike back.",
                                figure=fid, die=placed[fid], reason="fallen", killed_by=killed_by.get(fid)))
            continue
        if kills.get(fid, 0) >= rules.kills_per_figure:
            events.append(event("melee_skipped", f"{fid} has already killed a figure this melee.",
                                figure=fid, die=placed[fid], reason="already_killed"))
            continue
        forced = partner.get(fid)
        if forced is not None and forced in alive:
            candidates, contact = [forced], contacts[fid][forced]
        else:
            # A pair that tied this turn fights again next turn, not twice now ("Y and G are locked in
            # melee for next round", and Y attacks F instead).
            tied_now = {b if a == fid else a for a, b in new_locks if fid in (a, b)}
            candidates, contact = melee_candidates(fid, contacts, alive, gang, rules, tied_now)
            if not candidates and tied_now & alive:
                events.append(event("melee_locked", f"{fid} ({placed[fid]}) is locked with "
                                    f"{', '.join(sorted(tied_now & alive))} until next turn.",
                                    figure=fid, die=placed[fid], locked_with=sorted(tied_now & alive)))
                continue
        if not candidates:
            events.append(event("melee_no_target", f"{fid} ({placed[fid]}) has no target left.",
                                figure=fid, die=placed[fid]))
            continue
        if fid in choices:
            target_id = choices[fid]
            if target_id not in candidates:
                raise MeleeChoiceError(
                    f"melee choice {fid} -> {target_id}: allowed {', '.join(sorted(candidates))} "
                    f"({'locked partner' if forced else contact})")
        else:
            # The easiest fight first: the lowest die + Fighting Value, then scene order.
            target_id = min(candidates, key=lambda t: (placed.get(t, 0) + fighters[t].fv, order_index.get(t, 0)))
        target = fighters[target_id]
        gang[target_id] = gang.get(target_id, 0) + 1
        my_total, my_mods = total(me, placed[fid], {})
        their_total, their_mods = total(target, placed.get(target_id, 0),
                                        {"terrain": defence_bonus(target, me, rules, "melee")})
        facts = dict(figure=fid, target=target_id, contact=contact, die=placed[fid], mods=my_mods,
                     total=my_total, target_die=placed.get(target_id), target_mods=their_mods,
                     target_total=their_total)
        if my_total == their_total:
            new_locks.append((fid, target_id))
            events.append(event("melee_tie", f"{fid} ({my_total}) attacks {target_id} ({their_total}) "
                                f"{'across' if contact == ACROSS else 'a-corner'}: a tie, nobody dies; both stay "
                                "in place and fight again next turn.", **facts))
            continue
        winner, loser = (fid, target_id) if my_total > their_total else (target_id, fid)
        if kills.get(winner, 0) >= rules.kills_per_figure:
            events.append(event("melee_repulsed", f"{winner} beats {loser} but has already killed a figure; "
                                f"{loser} survives.", winner=winner, loser=loser, **facts))
            continue
        kills[winner] = kills.get(winner, 0) + 1
        alive.discard(loser)
        removed.append(loser)
        killed_by[loser] = winner
        events.append(event("melee_kill", f"{fid} ({my_total}) attacks {target_id} ({their_total}) "
                            f"{'across' if contact == ACROSS else 'a-corner'}: {winner} kills {loser}.",
                            winner=winner, loser=loser, **facts))

    locks = tuple(p for p in new_locks if p[0] in alive and p[1] in alive)
    if removed:
        events.append(event("removed", f"Remove {', '.join(removed)}.", figures=list(removed), cause="melee"))
    prompts = free_move_prompts(removed, killed_by, fighters, contacts, alive, attacker_side, locks, positions)
    return MeleeOutcome(tuple(events), tuple(removed), locks, placed, prompts)


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
