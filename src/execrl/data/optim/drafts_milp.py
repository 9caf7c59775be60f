"""Mixed-integer programs: binaries (selection, assignment, location) and general integers."""

from __future__ import annotations

from drafts_common import (
    HIGHS_REPORT,
    ORTOOLS_REPORT,
    PULP_REPORT,
    Draft,
    bad_format,
    code,
    crash,
    hang,
    no_code,
    text,
    wrong,
)

WAREHOUSES = Draft(
    id="distribution-centre-location",
    kind="milp",
    exercises="capacitated facility location: open/close binaries linked to flows",
    question=text("""
        Crescent Retail is deciding which of three candidate distribution centres to run. Dover
        costs $4,800 a week to operate and can ship up to 900 pallets a week; Easton costs
        $3,600 a week and can ship up to 600 pallets; Fairview costs $4,100 a week and can ship
        up to 750 pallets. A centre that is not opened costs nothing and ships nothing. Four
        sales regions need 350, 280, 420 and 300 pallets a week, and every region's need must be
        met exactly. Shipping one pallet costs: from Dover $6 to region 1, $9 to region 2, $4 to
        region 3 and $8 to region 4; from Easton $5, $3, $9 and $7; from Fairview $8, $6, $5 and
        $3. Which centres should be opened, and how should pallets flow, to minimise the total
        weekly cost of operating centres and shipping? What is that weekly cost in dollars?
    """),
    think=text("""
        Binary open[c] for each centre, continuous flow[c, r] >= 0 for each centre-region pair.
        Each region receives exactly its need. A centre ships at most its capacity, and nothing
        if closed: sum_r flow[c, r] <= capacity[c] * open[c]. Minimise fixed operating costs
        plus shipping costs.
    """),
    model=text("""
        Variables: open_c in {0, 1}; flow_{c,r} >= 0
        min sum_c fixed_c open_c + sum_{c,r} ship_{c,r} flow_{c,r}
        s.t. sum_c flow_{c,r} = need_r                for each region r
             sum_r flow_{c,r} <= capacity_c open_c    for each centre c
    """),
    code=code(
        """
        import highspy

        fixed = {"dover": 4800, "easton": 3600, "fairview": 4100}
        capacity = {"dover": 900, "easton": 600, "fairview": 750}
        need = [350, 280, 420, 300]
        ship = {
            "dover": [6, 9, 4, 8],
            "easton": [5, 3, 9, 7],
            "fairview": [8, 6, 5, 3],
        }
        regions = range(len(need))

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        is_open = {c: h.addBinary(name=f"open_{c}") for c in fixed}
        flow = {
            (c, r): h.addVariable(lb=0, name=f"flow_{c}_{r + 1}") for c in fixed for r in regions
        }

        for r in regions:
            h.addConstr(sum(flow[c, r] for c in fixed) == need[r], name=f"need_{r + 1}")
        for c in fixed:
            h.addConstr(
                sum(flow[c, r] for r in regions) <= capacity[c] * is_open[c], name=f"cap_{c}"
            )

        h.setObjective(
            sum(fixed[c] * is_open[c] for c in fixed)
            + sum(ship[c][r] * flow[c, r] for c in fixed for r in regions),
            sense=highspy.ObjSense.kMinimize,
        )
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "capacity is not tied to the open decision, so no centre is ever paid for",
            ("<= capacity[c] * is_open[c], name=", "<= capacity[c], name="),
        ),
        crash(
            "a fifth region is looped over but only four needs are given (IndexError)",
            ("regions = range(len(need))", "regions = range(5)"),
        ),
        bad_format("model-first"),
    ),
)

PROJECTS = Draft(
    id="rd-project-selection",
    kind="milp",
    exercises="0-1 knapsack with two resources, a precedence and an exclusion",
    question=text("""
        Helix Biotech can fund some of six research projects next year; each project is funded
        in full or not at all. The costs (in $ millions) are 4.0, 2.5, 3.5, 1.5, 5.0 and 2.0 for
        projects 1 to 6, and their expected net present values (in $ millions) are 9.5, 5.2,
        7.9, 3.1, 11.8 and 4.6. The projects need 3, 2, 3, 1, 4 and 2 lab teams respectively.
        The research budget is $12 million and 9 lab teams are available. Project 4 builds on
        project 2, so it can only be funded if project 2 is funded. Projects 1 and 5 target the
        same patent, so at most one of them can be funded. Which projects should be funded to
        maximise the total expected net present value, and what is that value in $ millions?
    """),
    think=text("""
        One binary per project. Budget and lab teams are knapsack constraints. "Project 4 only
        if project 2" is fund_4 <= fund_2. "At most one of 1 and 5" is fund_1 + fund_5 <= 1.
        Maximise the NPV sum.
    """),
    model=text("""
        Variables: f_i in {0, 1}, i = 1..6
        max 9.5 f1 + 5.2 f2 + 7.9 f3 + 3.1 f4 + 11.8 f5 + 4.6 f6
        s.t. 4.0 f1 + 2.5 f2 + 3.5 f3 + 1.5 f4 + 5.0 f5 + 2.0 f6 <= 12
             3 f1 + 2 f2 + 3 f3 + f4 + 4 f5 + 2 f6 <= 9
             f4 <= f2
             f1 + f5 <= 1
    """),
    code=code(
        """
        import pulp

        cost = [4.0, 2.5, 3.5, 1.5, 5.0, 2.0]
        npv = [9.5, 5.2, 7.9, 3.1, 11.8, 4.6]
        teams = [3, 2, 3, 1, 4, 2]
        projects = range(6)

        prob = pulp.LpProblem("rd_portfolio", pulp.LpMaximize)
        fund = [pulp.LpVariable(f"fund_{i + 1}", cat="Binary") for i in projects]

        prob += pulp.lpSum(npv[i] * fund[i] for i in projects)
        prob += pulp.lpSum(cost[i] * fund[i] for i in projects) <= 12, "budget"
        prob += pulp.lpSum(teams[i] * fund[i] for i in projects) <= 9, "lab_teams"
        prob += fund[3] <= fund[1], "p4_needs_p2"
        prob += fund[0] + fund[4] <= 1, "p1_or_p5"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "the lab-team limit is forgotten",
            ('prob += pulp.lpSum(teams[i] * fund[i] for i in projects) <= 9, "lab_teams"\n', ""),
        ),
        wrong(
            "the patent exclusion between projects 1 and 5 is forgotten",
            ('prob += fund[0] + fund[4] <= 1, "p1_or_p5"\n', ""),
        ),
        no_code("truncated"),
    ),
)

CALL_CENTRE = Draft(
    id="call-centre-shifts",
    kind="milp",
    exercises="cyclic shift covering with general integer staffing levels",
    question=text("""
        A customer-service call centre runs around the clock. The day is split into six 4-hour
        periods starting at 00:00, 04:00, 08:00, 12:00, 16:00 and 20:00, which need at least 6,
        8, 22, 26, 18 and 10 agents on duty respectively. Agents work 8-hour shifts that start at
        the beginning of any period and cover that period and the next one (the shift starting
        at 20:00 runs until 04:00). A shift starting at 20:00 or at 00:00 is paid at the night
        rate of $210 per agent; any other shift costs $168 per agent. How many agents should
        start at each time to cover every period at the lowest daily wage cost, and what is that
        cost in dollars?
    """),
    think=text("""
        Integer x_s = agents starting at period s (s = 0..5). Period p is covered by the shifts
        starting at p and at p - 1 (cyclically, so period 0 is covered by the 20:00 and 00:00
        shifts). Coverage must reach the need in every period. Night shifts (starts at 20:00
        and 00:00) cost 210, the rest 168.
    """),
    model=text("""
        Variables: x_s >= 0 integer, s = 0..5 (starts at 00, 04, 08, 12, 16, 20)
        min 210 x0 + 168 (x1 + x2 + x3 + x4) + 210 x5
        s.t. x_{p-1 mod 6} + x_p >= need_p   for p = 0..5
    """),
    code=code(
        """
        import highspy

        need = [6, 8, 22, 26, 18, 10]
        wage = [210, 168, 168, 168, 168, 210]
        periods = range(6)

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        start = [h.addIntegral(lb=0, name=f"start_{4 * s:02d}h") for s in periods]
        for p in periods:
            h.addConstr(start[(p - 1) % 6] + start[p] >= need[p], name=f"cover_{4 * p:02d}h")

        h.setObjective(sum(wage[s] * start[s] for s in periods), sense=highspy.ObjSense.kMinimize)
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "each shift is counted for its first period only (4-hour shifts)",
            ("start[(p - 1) % 6] + start[p] >= need[p]", "start[p] >= need[p]"),
        ),
        hang(
            "re-solves the unchanged model until someone starts at 20:00, which never happens",
            (
                "h.run()\n",
                "h.run()\n"
                "while h.getSolution().col_value[5] < 1:  # want some agents starting at 20:00\n"
                "    h.run()\n",
            ),
        ),
        bad_format("no-think"),
    ),
)

BATCHES = Draft(
    id="chemical-batch-production",
    kind="milp",
    exercises="production in whole batches (general integers) under two resources",
    question=text("""
        Corvid Chemicals makes three products in whole batches; a batch cannot be split. A batch
        of resin takes 6 reactor hours and 1.5 tonnes of feedstock and earns $2,300. A batch of
        solvent takes 4 reactor hours and 2.2 tonnes of feedstock and earns $1,900. A batch of
        adhesive takes 5 reactor hours and 1.8 tonnes of feedstock and earns $2,050. Next week
        the reactor is available for 100 hours and 38 tonnes of feedstock are in stock, and the
        tank farm can hold at most 8 batches of solvent. How many batches of each product should
        be made to maximise the week's earnings, and what are those earnings in dollars?
    """),
    think=text("""
        Integer numbers of batches of resin, solvent and adhesive. Reactor hours and feedstock
        are capacity constraints; the tank limit caps solvent at 8 batches. Because batches
        are whole, the LP optimum may be fractional, so the variables must be integer.
    """),
    model=text("""
        Variables: r, s, a >= 0 integer (batches)
        max 2300 r + 1900 s + 2050 a
        s.t. 6 r + 4 s + 5 a <= 100       (reactor hours)
             1.5 r + 2.2 s + 1.8 a <= 38  (feedstock, t)
             s <= 8                        (tank farm)
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        solver = pywraplp.Solver.CreateSolver("SCIP")
        inf = solver.infinity()
        resin = solver.IntVar(0, inf, "resin")
        solvent = solver.IntVar(0, inf, "solvent")
        adhesive = solver.IntVar(0, inf, "adhesive")

        solver.Add(6 * resin + 4 * solvent + 5 * adhesive <= 100, "reactor_hours")
        solver.Add(1.5 * resin + 2.2 * solvent + 1.8 * adhesive <= 38, "feedstock_t")
        solver.Add(solvent <= 8, "tank_farm")

        solver.Maximize(2300 * resin + 1900 * solvent + 2050 * adhesive)
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "batches modelled as continuous amounts",
            ('resin = solver.IntVar(0, inf, "resin")', 'resin = solver.NumVar(0, inf, "resin")'),
            (
                'solvent = solver.IntVar(0, inf, "solvent")',
                'solvent = solver.NumVar(0, inf, "solvent")',
            ),
            (
                'adhesive = solver.IntVar(0, inf, "adhesive")',
                'adhesive = solver.NumVar(0, inf, "adhesive")',
            ),
        ),
        crash(
            "creates an integer variable without the name OR-Tools requires (TypeError)",
            ('adhesive = solver.IntVar(0, inf, "adhesive")', "adhesive = solver.IntVar(0, inf)"),
        ),
        bad_format("untagged-model"),
    ),
)

ASSIGNMENT = Draft(
    id="technician-job-assignment",
    kind="milp",
    exercises="assignment problem with a forbidden pair (24 binaries)",
    question=text("""
        A field-service firm has five technicians (Ana, Ben, Chloe, Dev and Eli) and five jobs
        to do tomorrow, and each technician will take exactly one job. The estimated hours for
        each technician on jobs 1 to 5 are: Ana 7, 9, 6, 8 and 10; Ben 8, 6, 7, 9 and 7; Chloe 6,
        (not certified for job 2), 8, 7 and 9; Dev 9, 8, 9, 6 and 8; Eli 7, 7, 5, 9 and 6.
        Chloe may not be given job 2. Which technician should do which job to minimise the total
        hours worked, and how many hours is that?
    """),
    think=text("""
        Binary x[t, j] for every allowed technician-job pair; Chloe-job 2 simply has no
        variable. Each technician does exactly one job and each job is done by exactly one
        technician. Minimise total hours.
    """),
    model=text("""
        Variables: x_{t,j} in {0, 1} for allowed pairs (Chloe, job 2 excluded)
        min sum hours_{t,j} x_{t,j}
        s.t. sum_j x_{t,j} = 1   for each technician t
             sum_t x_{t,j} = 1   for each job j
    """),
    code=code(
        """
        import highspy

        hours = {
            "ana": {1: 7, 2: 9, 3: 6, 4: 8, 5: 10},
            "ben": {1: 8, 2: 6, 3: 7, 4: 9, 5: 7},
            "chloe": {1: 6, 3: 8, 4: 7, 5: 9},
            "dev": {1: 9, 2: 8, 3: 9, 4: 6, 5: 8},
            "eli": {1: 7, 2: 7, 3: 5, 4: 9, 5: 6},
        }
        jobs = [1, 2, 3, 4, 5]

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        x = {(t, j): h.addBinary(name=f"x_{t}_{j}") for t in hours for j in hours[t]}
        for t in hours:
            h.addConstr(sum(x[t, j] for j in hours[t]) == 1, name=f"one_job_{t}")
        for j in jobs:
            h.addConstr(sum(x[t, j] for t in hours if j in hours[t]) == 1, name=f"job_{j}")

        h.setObjective(
            sum(hours[t][j] * x[t, j] for t, j in x), sense=highspy.ObjSense.kMinimize
        )
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "sense flipped: maximises the hours",
            ("sense=highspy.ObjSense.kMinimize", "sense=highspy.ObjSense.kMaximize"),
        ),
        crash(
            "builds a variable for every pair, including Chloe on job 2 (KeyError)",
            ("for t in hours for j in hours[t]}", "for t in hours for j in jobs}"),
        ),
        no_code("empty-fence"),
    ),
)

TRUCKS = Draft(
    id="delivery-truck-fleet",
    kind="milp",
    exercises="integer fleet sizing with capacity, staffing and policy limits",
    question=text("""
        Maple Logistics must lease enough trucks to move at least 400 tonnes of goods a day.
        A small truck carries 10 tonnes a day, needs one driver and costs $290 a day to lease. A
        large truck carries 26 tonnes a day, needs two drivers and costs $690 a day. The company
        has 34 drivers, and its insurer allows at most 12 large trucks. Trucks can only be
        leased whole. How many trucks of each size should be leased to minimise the daily
        leasing cost, and what is that cost in dollars?
    """),
    think=text("""
        Integer numbers of small and large trucks. Capacity 10 s + 26 l >= 400, drivers
        s + 2 l <= 34, insurer l <= 12. Minimise 290 s + 690 l. Large trucks are cheaper per
        tonne, but the insurer cap and the driver pool force a mix.
    """),
    model=text("""
        Variables: s, l >= 0 integer
        min 290 s + 690 l
        s.t. 10 s + 26 l >= 400
             s + 2 l <= 34
             l <= 12
    """),
    code=code(
        """
        import pulp

        prob = pulp.LpProblem("truck_fleet", pulp.LpMinimize)
        small = pulp.LpVariable("small_trucks", lowBound=0, cat="Integer")
        large = pulp.LpVariable("large_trucks", lowBound=0, cat="Integer")

        prob += 290 * small + 690 * large
        prob += 10 * small + 26 * large >= 400, "tonnes_per_day"
        prob += small + 2 * large <= 34, "drivers"
        prob += large <= 12, "insurer_cap"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "the two lease prices swapped between small and large trucks",
            ("prob += 290 * small + 690 * large", "prob += 690 * small + 290 * large"),
        ),
        wrong(
            "trucks modelled as continuous, so fractional trucks are leased",
            ('"small_trucks", lowBound=0, cat="Integer"', '"small_trucks", lowBound=0'),
            ('"large_trucks", lowBound=0, cat="Integer"', '"large_trucks", lowBound=0'),
        ),
        bad_format("code-before-model"),
    ),
)

ROLLS = Draft(
    id="paper-roll-cutting",
    kind="milp",
    exercises="cutting stock over given patterns (general integers)",
    question=text("""
        Stanton Paper cuts 100-inch jumbo rolls into narrower rolls for customers. This week's
        orders are 48 rolls of 45 inches, 36 rolls of 36 inches, 55 rolls of 31 inches and 60
        rolls of 14 inches; delivering more than ordered is allowed. The cutting machine is set
        up for eight patterns, each applied to a whole jumbo roll: pattern A gives two 45s;
        B gives one 45, one 36 and one 14; C gives one 45, one 31 and one 14; D gives two 36s
        and two 14s; E gives three 31s; F gives one 36 and two 31s; G gives seven 14s; H gives
        one 31 and four 14s. How many jumbo rolls should be cut with each pattern to fill all
        orders using as few jumbo rolls as possible, and how many jumbo rolls is that?
    """),
    think=text("""
        Integer n_p = jumbo rolls cut with pattern p. For each width, the rolls produced
        (pieces per pattern times n_p) must cover the order. Minimise the sum of n_p.
    """),
    model=text("""
        Variables: n_A..n_H >= 0 integer
        min n_A + ... + n_H
        s.t. 2 n_A + n_B + n_C >= 48             (45 in)
             n_B + 2 n_D + n_F >= 36             (36 in)
             n_C + 3 n_E + 2 n_F + n_H >= 55     (31 in)
             n_B + n_C + 2 n_D + 7 n_G + 4 n_H >= 60   (14 in)
    """),
    code=code(
        """
        import highspy

        orders = {45: 48, 36: 36, 31: 55, 14: 60}
        patterns = {
            "A": {45: 2},
            "B": {45: 1, 36: 1, 14: 1},
            "C": {45: 1, 31: 1, 14: 1},
            "D": {36: 2, 14: 2},
            "E": {31: 3},
            "F": {36: 1, 31: 2},
            "G": {14: 7},
            "H": {31: 1, 14: 4},
        }

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        cut = {p: h.addIntegral(lb=0, name=f"cut_{p}") for p in patterns}
        for width, ordered in orders.items():
            h.addConstr(
                sum(pieces.get(width, 0) * cut[p] for p, pieces in patterns.items()) >= ordered,
                name=f"width_{width}",
            )

        h.setObjective(sum(cut.values()), sense=highspy.ObjSense.kMinimize)
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "pattern B read as two 45s instead of one 45, one 36 and one 14",
            ('"B": {45: 1, 36: 1, 14: 1},', '"B": {45: 2, 36: 1, 14: 1},'),
        ),
        wrong(
            "pattern counts left continuous: reports the LP relaxation (fractional rolls)",
            (
                'cut = {p: h.addIntegral(lb=0, name=f"cut_{p}")',
                'cut = {p: h.addVariable(lb=0, name=f"cut_{p}")',
            ),
        ),
        crash(
            "indexes a pattern's pieces directly, failing on widths it does not cut (KeyError)",
            ("pieces.get(width, 0) * cut[p]", "pieces[width] * cut[p]"),
        ),
    ),
)

ROOMS = Draft(
    id="conference-room-booking",
    kind="milp",
    exercises="binaries and general integers together: room choice and table counts",
    question=text("""
        An events company must seat 230 guests at a conference dinner, at round tables of 10
        guests each; every guest needs a seat. It can book any of four rooms for the evening:
        Aster costs $900 and holds up to 12 tables, Birch costs $650 and holds up to 9 tables,
        Cedar costs $500 and holds up to 8 tables, and Dahlia costs $380 and holds up to 6
        tables. Tables can only be placed in booked rooms. Setting up a table costs $45. The
        keynote speech needs a stage, and only Aster and Birch have one, so at least one of
        those two rooms must be booked. Which rooms should be booked and how many tables placed
        in each to minimise the total cost, and what is that cost in dollars?
    """),
    think=text("""
        Binary book[r] per room and integer tables[r] per room. Tables in a room are at most
        its size, and zero if the room is not booked: tables[r] <= size[r] * book[r]. Seats:
        10 * total tables >= 230. Stage: book[Aster] + book[Birch] >= 1. Minimise room rent
        plus 45 per table.
    """),
    model=text("""
        Variables: b_r in {0, 1}; t_r >= 0 integer, r in {Aster, Birch, Cedar, Dahlia}
        min sum_r rent_r b_r + 45 sum_r t_r
        s.t. 10 sum_r t_r >= 230
             t_r <= size_r b_r        for each room r
             b_Aster + b_Birch >= 1
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        rent = {"aster": 900, "birch": 650, "cedar": 500, "dahlia": 380}
        size = {"aster": 12, "birch": 9, "cedar": 8, "dahlia": 6}

        solver = pywraplp.Solver.CreateSolver("CBC")
        book = {r: solver.BoolVar(f"book_{r}") for r in rent}
        tables = {r: solver.IntVar(0, solver.infinity(), f"tables_{r}") for r in rent}

        solver.Add(10 * sum(tables.values()) >= 230, "seats")
        for r in rent:
            solver.Add(tables[r] <= size[r] * book[r], f"room_{r}")
        solver.Add(book["aster"] + book["birch"] >= 1, "stage")

        solver.Minimize(sum(rent[r] * book[r] for r in rent) + 45 * sum(tables.values()))
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "tables are not tied to booked rooms, so no room is rented",
            ("solver.Add(tables[r] <= size[r] * book[r]", "solver.Add(tables[r] <= size[r]"),
        ),
        wrong(
            "tables seat 8 instead of 10",
            (
                "solver.Add(10 * sum(tables.values()) >= 230",
                "solver.Add(8 * sum(tables.values()) >= 230",
            ),
        ),
        no_code("empty-python"),
    ),
)

DRAFTS = [WAREHOUSES, PROJECTS, CALL_CENTRE, BATCHES, ASSIGNMENT, TRUCKS, ROLLS, ROOMS]
