"""The actions of areas A to G: what a worker may choose there and what it does.

Each action has an ``*_options`` function (the legal choices as action
strings, used by `legal_actions`) and a function that carries a choice out.
Automatic actions (excavate, lay track, surveyor) have no choice to make.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .blaenau import BlaenauMixin
from .components import CUBES


def cube_combo_name(counts: dict[str, int]) -> str:
    key = (counts.get("iron", 0), counts.get("stone", 0), counts.get("coal", 0))  # the order of CUBES
    name = _COMBO_NAMES.get(key)
    if name is None:
        name = _COMBO_NAMES[key] = _combo_name(key)
    return name


def _combo_name(key: tuple[int, int, int]) -> str:
    parts = [c for c, n in zip(CUBES, key, strict=True) for _ in range(n)]
    return "+".join(parts) if parts else "nothing"


#: Names of cube combinations, made at import for every combination a stock yard can offer (up to 3
#: cubes, 5 with contract #8 and one more with a train: 7 leaves room); larger ones are added on demand.
_COMBO_NAMES: dict[tuple[int, int, int], str] = {
    (i, s, c): _combo_name((i, s, c)) for i in range(8) for s in range(8) for c in range(8) if i + s + c <= 7
}


#: Stock-yard options by (yard iron, stone, coal, cap, coal cap, exact): they depend on nothing else.
_TAKE_OPTIONS: dict[tuple[int, int, int, int, int, bool], tuple[str, ...]] = {}
#: The same as actions ("take:iron+coal"), for `SnowdoniaState.decision_options`.
_TAKE_ACTIONS: dict[tuple[int, int, int, int, int, bool], tuple[str, ...]] = {}


def parse_cube_combo(text: str) -> dict[str, int] | None:
    counts = dict.fromkeys(CUBES, 0)
    if text == "nothing":
        return counts
    for part in text.split("+"):
        if part not in counts:
            return None
        counts[part] += 1
    return counts


#: "build:<station>.<site>" by (station key, site index), made once.
_BUILD_NAMES: dict[tuple[str, int], str] = {}


@cache
def _combos(cap: int, coal_cap: int) -> tuple[tuple[int, int, int, int, str], ...]:
    """Every (iron, stone, coal, total, name) a full stock yard allows for these caps, in the order
    `_take_options` lists them (coal, then stone, then iron, each counting up)."""
    return tuple(
        (i, s, c, i + s + c, _COMBO_NAMES.get((i, s, c)) or _combo_name((i, s, c)))
        for c in range(min(coal_cap, cap) + 1)
        for s in range(cap - c + 1)
        for i in range(cap - c - s + 1)
    )


def _take_options(key: tuple[int, int, int, int, int, bool]) -> tuple[str, ...]:
    """The stock-yard options for a `_TAKE_OPTIONS` key (see `WorkMixin.take_options`): the
    combinations the caps allow, keeping those the yard holds."""
    iron, stone, coal, cap, coal_cap, exact = key
    combos = [(n, name) for i, s, c, n, name in _combos(cap, coal_cap) if i <= iron and s <= stone and c <= coal]
    most = max(n for n, _ in combos)
    return tuple([name for n, name in combos if (n == most if exact else n > 0 or most == 0)])


class WorkMixin(BlaenauMixin):
    """Actions A-G."""

    # ----- A: stock yard ----------------------------------------------------------
    def take_options(self, cap: int, coal_cap: int, exact: bool = False) -> list[str]:
        """Ways to take up to ``cap`` cubes from the stock yard, at most ``coal_cap`` coal.

        At least one cube must be taken when any is there: a placed worker has
        to act if it can.  With ``exact`` (contracts #20/#23: "take 2 cubes",
        not "up to 2") the seat takes as many as ``cap`` allows, so only the
        largest combinations are offered.
        """
        y = self.yard
        key = (y["iron"], y["stone"], y["coal"], cap, coal_cap, exact)
        cached = _TAKE_OPTIONS.get(key)
        if cached is None:
            cached = _TAKE_OPTIONS[key] = _take_options(key)
        return list(cached)

    def take_actions(self, cap: int, coal_cap: int, exact: bool = False) -> tuple[str, ...]:
        """`take_options` as actions (``take:iron+coal``), made once per stock yard and caps."""
        y = self.yard
        key = (y["iron"], y["stone"], y["coal"], cap, coal_cap, exact)
        cached = _TAKE_ACTIONS.get(key)
        if cached is None:
            options = _TAKE_OPTIONS.get(key)
            if options is None:
                options = _TAKE_OPTIONS[key] = _take_options(key)
            cached = _TAKE_ACTIONS[key] = tuple(["take:" + o for o in options])
        return cached

    def stock_yard_caps(self, seat: int) -> tuple[int, int]:
        cap = 3 + 2 * self.has_active(seat, "yard_plus_two")
        train = self.p(seat)["train"]
        if train is not None and self.scen.trains[train].ability == "stock_yard_plus_one":
            cap += 1
        coal_cap = cap if self.has_active(seat, "coal_limit_off") else 1
        return cap, coal_cap

    def take_cubes(self, seat: int, counts: dict[str, int]) -> None:
        pl = self.p(seat)
        for cube, n in counts.items():
            self.yard[cube] -= n
            pl[cube] += n

    def take_start_player(self, seat: int) -> None:
        """The last stock yard space takes the start player marker unless #22 holds it."""
        if not self.start_locked:
            self.start_player = seat

    # ----- B: excavate ------------------------------------------------------------
    def excavate_amount(self, seat: int) -> int:
        n = self.rate("excavate")
        train = self.p(seat)["train"]
        if train is not None and self.scen.trains[train].ability == "excavate_plus_two":
            n += 2
        return n * 2 ** self.has_active(seat, "double_excavation")

    def excavate(self, seat: int, amount: int) -> int:
        """Work ``amount`` rubble uphill; clearing a shovel site gives its owner marker.

        Daffodil Line: on a canal card the worker puts rubble from the
        player's own supply onto it instead of taking rubble away (one cube
        for each cube the work rate would clear), never more than the card
        takes.  The player must while they have rubble, and the action ends
        the moment their supply is empty.  Whoever takes the last rubble of a
        field, or puts the last cube into a canal card, that shows a daffodil
        gets one.  Returns the rubble moved (taken plus filled).
        """
        pl = self.p(seat)
        if not self.lay.has_canals:
            return self._excavate_plain(seat, pl, amount)
        route = self.route
        moved = 0
        while moved < amount:
            f = route.next_field()
            if f is None:
                break
            if route.is_canal(f):
                if pl["rubble"] == 0:
                    break
                card = self.tracks[f[1]]
                put = min(route.work_left(f), amount - moved, pl["rubble"])
                card["rubble"] += put
                pl["rubble"] -= put
                pl["filled"] += put
                moved += put
                if card["rubble"] == card["number"] and card.get("daffodil"):
                    pl["daffodils"] += 1
                if pl["rubble"] == 0:
                    break  # "Wenn sein Vorrat erschöpft ist, endet die Aktion sofort."
                continue
            have = route.rubble_at(f)
            take = min(have, amount - moved)
            route.set_rubble(f, have - take)
            pl["rubble"] += take
            moved += take
            if have - take == 0 and f[0] == "s":
                self.claim_dig_site(seat, f[1], f[2])
        return moved

    def _excavate_plain(self, seat: int, pl: dict[str, Any], amount: int) -> int:
        """`excavate` on a route without canal cards, in one pass uphill (each field is emptied
        before the next is touched, the route's `next_field` order)."""
        taken = 0
        tracks, sites = self.tracks, self.sites
        # Blaenau Ffestiniog: from the end where the seat's surveyor started.
        for f in self.fields_from(self.end_of(seat)):
            if taken >= amount:
                break
            holder = tracks[f[1]] if f[0] == "t" else sites[f[1]]["dig"][f[2]]
            have = holder["rubble"]
            if have <= 0:
                continue
            take = min(have, amount - taken)
            holder["rubble"] = have - take
            taken += take
            if have - take == 0 and f[0] == "s":
                self.claim_dig_site(seat, f[1], f[2])
        pl["rubble"] += taken
        return taken

    def clear_next_field(self, seat: int) -> int:
        """Contract #3: clear the next field with rubble completely (Daffodil Line: or fill it, as far as the rubble lasts)."""
        f = self.next_field_from(self.end_of(seat)) if self.two_ends else self.route.next_field()
        if f is None:
            return 0
        return self.excavate(seat, self.route.work_left(f))

    def claim_dig_site(self, seat: int, si: int, j: int) -> None:
        pl = self.p(seat)
        if pl["markers"] > 0:
            pl["markers"] -= 1
            self.sites[si]["dig"][j]["owner"] = seat
        if self.lay.stations[si].excavation_sites[j].daffodil:
            pl["daffodils"] += 1

    # ----- C: workshop ------------------------------------------------------------
    def iron_per_steel(self, seat: int) -> int:
        train = self.p(seat)["train"]
        return 2 if train is not None and self.scen.trains[train].ability == "cheap_steel" else 3

    def work_options(self, seat: int) -> list[str]:
        """One to three conversions; "nothing" only when none is possible.

        A worker on an action space must carry the action out if it can (seed:
        "er kann nicht darauf verzichten"); "up to three" leaves one or two open.
        """
        if self.scen.daffodil is not None:
            return self.work_options_daffodil(seat)
        pl = self.p(seat)
        per = self.iron_per_steel(seat)
        out: list[str] = []
        for steel in range(4):
            if steel * per > pl["iron"] or steel > self.steel:
                break
            for stone in range(4 - steel):
                if 2 * stone > pl["rubble"] or stone > self.bag["stone"]:
                    break
                out.append("+".join(["steel"] * steel + ["stone"] * stone) or "nothing")
        if len(out) > 1:
            out.remove("nothing")
        return out

    def work_options_daffodil(self, seat: int) -> list[str]:
        """The Daffodil Line's workshop: steel, stone and "smash stone", up to three in any mix.

        Smashing puts 1 stone from the player's supply back into the bag for
        2 rubble from the general supply.  The seed lets a player swap back and
        forth within the action, so the choices are the distinct *results*
        (steel made, stone gained or smashed), plus ``smash+stone`` (smash a
        stone and make it again, or the other way round) when that round trip
        is possible: it lets the worker end up changing nothing, which the
        seed allows on purpose.
        """
        pl = self.p(seat)
        per = self.iron_per_steel(seat)
        out: list[str] = []
        for steel in range(4):
            if steel * per > pl["iron"] or steel > self.steel:
                break
            room = 3 - steel
            for net in range(-room, room + 1):
                if steel == 0 and net == 0:
                    continue
                if net > 0 and (2 * net > pl["rubble"] or net > self.bag["stone"]):
                    continue
                if net < 0 and -net > pl["stone"]:
                    continue
                word = "stone" if net > 0 else "smash"
                out.append("+".join(["steel"] * steel + [word] * abs(net)))
        round_trip = pl["stone"] >= 1 or (pl["rubble"] >= 2 and self.bag["stone"] >= 1)
        if round_trip:
            out.append("smash+stone")
        return out or ["nothing"]

    def do_work(self, seat: int, steel: int, stone: int, iron_per: int, smash: int = 0) -> None:
        pl = self.p(seat)
        pl["iron"] -= steel * iron_per
        self.bag["iron"] += steel * iron_per
        pl["steel"] += steel
        self.steel -= steel
        pl["rubble"] -= 2 * stone
        pl["stone"] += stone
        self.bag["stone"] -= stone
        if smash:
            # Daffodil Line: 1 stone back into the bag, 2 rubble from the general supply (unlimited).
            assert self.scen.daffodil is not None
            pl["stone"] -= smash
            self.bag["stone"] += smash
            pl["rubble"] += self.scen.daffodil.smash_rubble * smash

    # ----- D: lay track -----------------------------------------------------------
    def lay_amount(self, seat: int) -> int:
        n = self.rate("lay_track") + self.has_active(seat, "lay_plus_one")
        train = self.p(seat)["train"]
        if train is not None and self.scen.trains[train].ability == "lay_track_plus_one":
            n += 1
        return n

    def lay_track(self, seat: int, amount: int) -> int:
        """Lay up to ``amount`` track: one steel and one ownership marker each, lowest cleared card first."""
        pl = self.p(seat)
        laid = 0
        # Blaenau Ffestiniog: from the end where the seat's surveyor started.
        for slot in self.slots_from(self.end_of(seat), self.route.clearable_tracks()):
            if laid >= amount or pl["steel"] < 1 or pl["markers"] < 1:
                break
            pl["steel"] -= 1
            self.steel += 1
            pl["markers"] -= 1
            self.tracks[slot].update(laid=True, owner=seat)
            laid += 1
        if laid and self.route.all_laid() and self.end_after is None:
            self.end_after = self.round
        return laid

    # ----- E: build ---------------------------------------------------------------
    def build_options(self, seat: int) -> list[str]:
        """Sites and trains the seat can pay for now, with every way of paying."""
        pl = self.players[seat]
        out: list[str] = []
        if pl["active"]:
            iron_ok = self.has_active(seat, "iron_for_steel") > 0
            rubble_ok = self.has_active(seat, "rubble_for_stone") > 0
            discount = self.has_active(seat, "stone_discount")
        else:  # no contract played this round: no substitutes, no discount
            iron_ok = rubble_ok = False
            discount = 0
        if pl["markers"] > 0:
            route = self.route
            two_ends = self.two_ends
            sites = self.sites
            names = _BUILD_NAMES
            for si, st in enumerate(self.lay.stations):
                if two_ends:
                    # Blaenau Ffestiniog: no cleared track needed, but only where the surveyor has been.
                    if not self.reached(seat, si) or sites[si]["completed"]:
                        continue
                elif not route.station_open(si):
                    continue
                build_sites = st.build_sites
                for j, owner in enumerate(sites[si]["build"]):
                    if owner is not None:
                        continue
                    site = build_sites[j]
                    name = names.get((st.key, j))
                    if name is None:
                        name = names[st.key, j] = f"build:{st.key}.{j + 1}"
                    if site.daffodils:
                        # Daffodil Line, Gloucester: paid in daffodils, no substitutes.
                        if pl["daffodils"] >= site.daffodils:
                            out.append(name)
                    elif site.stone:
                        cost = max(0, site.stone - discount)
                        for r in range(min(2, cost) + 1 if rubble_ok else 1):
                            if pl["stone"] >= cost - r and pl["rubble"] >= 2 * r:
                                out.append(name + "+rubble" * r)
                    elif not iron_ok:
                        if pl["steel"] >= site.steel:
                            out.append(name)
                    else:
                        out.extend(name + s for s in self._steel_ways(pl, site.steel, iron_ok))
        if self.trains_available:
            for t in self.shed:
                if t["number"] == pl["train"]:
                    continue
                cost = self.scen.trains[t["number"]].cost_steel
                out.extend(f"train:{t['number']}{s}" for s in self._steel_ways(pl, cost, iron_ok))
        return out

    @staticmethod
    def _steel_ways(pl: dict[str, Any], cost: int, iron_ok: bool) -> list[str]:
        ways = []
        for j in range(cost + 1 if iron_ok else 1):
            if pl["steel"] >= cost - j and pl["iron"] >= 3 * j:
                ways.append("+iron" * j)
        return ways

    def do_build(self, seat: int, action: str) -> None:
        """Carry out a build option produced by `build_options`."""
        pl = self.p(seat)
        head, *extras = action.split("+")
        kind, _, target = head.partition(":")
        irons = extras.count("iron")
        rubbles = extras.count("rubble")
        if kind == "train":
            number = int(target)
            self._pay_steel(pl, self.scen.trains[number].cost_steel, irons)
            self.buy_train(seat, number)
            return
        key, _, idx = target.partition(".")
        si = self.lay.station_index(key)
        j = int(idx) - 1
        site = self.lay.stations[si].build_sites[j]
        if site.daffodils:
            pl["daffodils"] -= site.daffodils
        elif site.stone:
            cost = max(0, site.stone - self.has_active(seat, "stone_discount"))
            pl["stone"] -= cost - rubbles
            self.bag["stone"] += cost - rubbles
            pl["rubble"] -= 2 * rubbles
        else:
            self._pay_steel(pl, site.steel, irons)
        pl["markers"] -= 1
        self.sites[si]["build"][j] = seat
        if site.daffodil:
            pl["daffodils"] += 1
        if self.lay.stations[si].build_bonus:
            self.build_bonus(seat, si)  # Blaenau Ffestiniog: free cubes from the bag while it has them

    def _pay_steel(self, pl: dict[str, Any], cost: int, irons: int) -> None:
        pl["steel"] -= cost - irons
        self.steel += cost - irons
        pl["iron"] -= 3 * irons
        self.bag["iron"] += 3 * irons

    def buy_train(self, seat: int, number: int) -> None:
        """Trade in the old train (if any), then take the new one with the coal on it."""
        pl = self.p(seat)
        if pl["train"] is not None:
            old = pl["train"]
            pl["train"] = None
            self.return_train(old)
        entry = self.shed_train(number)
        assert entry is not None
        missing = self.scen.trains[number].coal - entry["coal"]
        # Yucata: coal still missing on a bought train comes from another train in the shed.
        for other in sorted(self.shed, key=lambda t: -t["number"]):
            if missing <= 0:
                break
            if other is entry or other["coal"] <= 0:
                continue
            move = min(missing, other["coal"])
            other["coal"] -= move
            entry["coal"] += move
            missing -= move
        pl["coal"] += entry["coal"]
        self.shed.remove(entry)
        pl["train"] = number
        self.refill_shed()

    # ----- F and G ----------------------------------------------------------------
    def take_contract(self, seat: int, number: int) -> None:
        idx = self.row.index(number)
        self.row[idx] = None
        self.p(seat)["unused"].append(number)

    def move_surveyor(self, seat: int) -> bool:
        pl = self.p(seat)
        if self.two_ends:
            step = self.surveyor_step(seat)
            if 0 <= pl["surveyor"] + step < len(self.lay.stations):
                self.start_marker(seat)
                pl["surveyor"] += step
                return True
            return False
        if pl["surveyor"] < len(self.lay.stations) - 1:
            pl["surveyor"] += 1
            return True
        return False
