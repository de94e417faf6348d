"""Contract effects and events.

Playing a contract does its automatic part at once and puts any choice it
needs (a weather disc, cubes to take, conversions, a worker to move, a card
to keep, cubes to draw) on the agenda; effects that last the round are read
from the player's *active* contracts by the actions themselves, and effects
"after all other actions" of an area are run by the round flow.
"""

from __future__ import annotations

from .route import Field
from .work import WorkMixin


class EffectsMixin(WorkMixin):
    """Contracts and events."""

    # ----- contracts --------------------------------------------------------------
    def playable_contracts(self, seat: int, area: str) -> list[int]:
        """Contracts the seat may play before ``area`` resolves."""
        if self.contracts_blocked or self.area_blocked(area):
            return []
        unused = self.players[seat]["unused"]
        if not unused:
            return []
        contracts = self.scen.contracts
        out = [n for n in sorted(unused) if contracts[n].area == area]
        if out:
            # #28 needs a worker of yours that can move somewhere.
            out = [n for n in out if contracts[n].effect != "move_worker" or self.move_options(seat)]
        return out

    def play_contract(self, seat: int, number: int) -> None:
        pl = self.p(seat)
        pl["unused"].remove(number)
        pl["active"].append(number)
        effect = self.scen.contracts[number].effect
        if effect == "swap_weather":
            if self.swap_options():
                self._push(["ask", "swap", seat])
        elif effect == "draw_two_keep_one":
            self.offer = []
            self._push(["offer_draw", seat, number, 2], ["ask", "keep", seat, number])
        elif effect == "rubble_to_stone":
            self._push(["ask", "convert_stone", seat])
        elif effect == "iron_to_steel":
            self._push(["ask", "convert_steel", seat])
        elif effect == "block_contracts":
            self.contracts_blocked = True
        elif effect == "draw_three_cubes":
            self._push(["cube_draw", seat, 3], ["return_held_events"])
        elif effect == "take_two":
            self._push(["ask", "take_two", seat])
        elif effect == "take_start_player":
            self.start_player = seat
            self.start_locked = True
        elif effect == "surveyor_step":
            self.move_surveyor(seat)
        elif effect == "move_worker":
            self._push(["ask", "move", seat])

    def swap_options(self) -> list[str]:
        """Weather discs in the supply that could replace the middle disc."""
        board = self.scen.board
        # Every disc on the forecast (the current one included) and, in fog, the two markers on B and D
        # are out of the supply.  With 3 sun, 3 rain and 5 fog discs a colour other than the middle
        # disc's own is therefore always left.
        used = {w: self.forecast.count(w) for w in board.weather_discs}
        if self.fog():
            used["fog"] += board.fog_markers
        middle = self.forecast[1]
        return [f"swap:{w}" for w, n in board.weather_discs.items() if n - used[w] > 0 and w != middle]

    def convert_stone_options(self, seat: int) -> list[str]:
        pl = self.p(seat)
        top = min(3, pl["rubble"] // 2, self.bag["stone"])
        return [f"convert:{k}" for k in range(top + 1)]

    def convert_steel_options(self, seat: int) -> list[str]:
        pl = self.p(seat)
        top = min(2, pl["iron"] // 2, self.steel)
        return [f"convert:{k}" for k in range(top + 1)]

    def move_options(self, seat: int) -> list[str]:
        """Contract #28: move one of your placed workers to another empty space."""
        mine = [s for s, who in self.spaces.items() if who == seat]
        if seat in self.g_workers:
            mine.append("G")
        empty = [s for s, who in self.spaces.items() if who is None and not self.area_blocked(s[0])]
        out = [f"move:{a}>{b}" for a in mine for b in empty]
        out += [f"move:{a}>G" for a in mine if a != "G"]
        return out

    def move_worker(self, seat: int, src: str, dst: str) -> None:
        if src == "G":
            self.g_workers.remove(seat)
        else:
            self.spaces[src] = None
        if dst == "G":
            self.g_workers.append(seat)
        else:
            self.spaces[dst] = seat

    # ----- events -----------------------------------------------------------------
    def place_event_cube(self) -> int:
        """Put a drawn event cube on the next space; return the space number (1-10)."""
        occupied = [i for i, on in enumerate(self.events) if on]
        index = occupied[-1] + 1 if occupied else 0
        self.events[index] = True
        return index + 1

    def return_event_cubes(self, space: int) -> None:
        spec = self.scen.board.event_track[space - 1]
        for s in spec.return_spaces:
            if self.events[s - 1]:
                self.events[s - 1] = False
                self.bag["event"] += 1

    def event_excavate(self) -> list[Field]:
        """Other companies clear all rubble from as many fields as the excavation rate.

        Daffodil Line: a canal card among them is filled completely from the
        general supply instead; nobody gets its daffodil (no player did it).
        """
        if not self.lay.has_canals:
            return self._event_excavate_plain()
        route = self.route
        cleared = []
        for _ in range(self.rate("excavate")):
            f = route.next_field()
            if f is None:
                break
            if route.is_canal(f):
                route.set_rubble(f, int(self.tracks[f[1]]["number"]))
            else:
                route.set_rubble(f, 0)
            cleared.append(f)
        return cleared

    def _event_excavate_plain(self) -> list[Field]:
        """`event_excavate` on a route without canal cards: one pass over the fields in the order work
        reaches them (Blaenau Ffestiniog: from the end where the outside surveyor stands)."""
        cleared: list[Field] = []
        todo = self.rate("excavate")
        tracks, sites = self.tracks, self.sites
        for f in self.fields_from(self.outside_end):
            if len(cleared) >= todo:
                break
            holder = tracks[f[1]] if f[0] == "t" else sites[f[1]]["dig"][f[2]]
            if holder["rubble"] > 0:
                holder["rubble"] = 0
                cleared.append(f)
        return cleared

    def event_lay_track(self) -> list[int]:
        """Other companies lay the next track cards (rubble on them is removed); nobody owns them.

        Daffodil Line: rubble already filled into a canal card goes back to the
        general supply too, whether or not the card was full.
        """
        slots = self.slots_from(self.outside_end, self.route.unlaid())[: self.rate("lay_track")]
        for s in slots:
            self.tracks[s].update(laid=True, rubble=0, owner=None)
        if slots and self.route.all_laid() and self.end_after is None:
            # Laid by an event: the round is finished and one more full round follows.
            self.end_after = self.round + 1
        return slots

    def event_complete_station(self) -> int | None:
        si = self.route.first_unfinished_station()
        if self.two_ends and self.backwards(self.outside_end):
            # Blaenau Ffestiniog, outside surveyor at Porthmadog Harbour: the first one seen from there.
            open_ = [i for i in range(1, len(self.lay.stations) - 1)
                     if not self.sites[i]["completed"] and self.route.free_build_sites(i)]
            si = open_[-1] if open_ else None
        if si is None:
            return None
        self.sites[si]["completed"] = True
        for d in self.sites[si]["dig"]:
            d["rubble"] = 0
        return si

    def maintenance_options(self, seat: int) -> list[str]:
        pl = self.p(seat)
        out = []
        if pl["steel"] > 0:
            out.append("maint:steel")
        out += [f"maint:{n}" for n in self.contracts_of(seat) if self.scen.contracts[n].effect == "maintenance"]
        out.append("maint:lose")
        return out

    def do_maintenance(self, seat: int, choice: str) -> None:
        pl = self.p(seat)
        if choice == "steel":
            pl["steel"] -= 1
            self.steel += 1
        elif choice == "lose":
            number = pl["train"]
            pl["train"] = None
            self.return_train(number)
        else:
            n = int(choice)
            for pile in ("unused", "active", "used"):
                if n in pl[pile]:
                    pl[pile].remove(n)
                    break
            self.discard.append(n)
