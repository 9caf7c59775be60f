"""Big-M logic: fixed charges, either-or constraints, minimum lots, unit commitment and
disjunctive scheduling."""

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

TEXTILES = Draft(
    id="garment-line-setup",
    kind="bigm",
    exercises="fixed-charge product lines: integer output switched on by a binary (x <= M y)",
    question=text("""
        Tally Textiles can make shirts, shorts and jackets next week, but each product line
        needs its own machinery rented for the week: $480 for shirts, $300 for shorts and $520
        for jackets. A line whose machinery is not rented produces nothing. A shirt needs 2.5
        hours of labour and 3 metres of cloth and earns $11; a pair of shorts needs 1.5 hours and
        2 metres and earns $7; a jacket needs 4 hours and 5 metres and earns $16. The workshop
        has 220 hours of labour and 260 metres of cloth for the week. Only whole garments can be
        sold. Which lines should be rented and how many of each garment made to maximise the
        week's profit after machinery rent, and what is that profit in dollars?
    """),
    think=text("""
        Integer quantities x_i and binary rent decisions y_i. The link "no rent, no production"
        is x_i <= M_i y_i; a safe and tight M_i is the most of garment i the resources allow on
        their own: floor(min(220 / labour_i, 260 / cloth_i)). Profit is unit earnings minus the
        rent of the lines used.
    """),
    model=text("""
        Variables: x_i >= 0 integer, y_i in {0, 1}, i in {shirts, shorts, jackets}
        max 11 x_s + 7 x_h + 16 x_j - 480 y_s - 300 y_h - 520 y_j
        s.t. 2.5 x_s + 1.5 x_h + 4 x_j <= 220
             3 x_s + 2 x_h + 5 x_j <= 260
             x_i <= M_i y_i,  M_i = floor(min(220 / labour_i, 260 / cloth_i))
    """),
    code=code(
        """
        import math

        import highspy

        labour = {"shirts": 2.5, "shorts": 1.5, "jackets": 4}
        cloth = {"shirts": 3, "shorts": 2, "jackets": 5}
        profit = {"shirts": 11, "shorts": 7, "jackets": 16}
        rent = {"shirts": 480, "shorts": 300, "jackets": 520}
        big_m = {g: math.floor(min(220 / labour[g], 260 / cloth[g])) for g in labour}

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        make = {g: h.addIntegral(lb=0, name=f"make_{g}") for g in labour}
        rented = {g: h.addBinary(name=f"rent_{g}") for g in labour}

        h.addConstr(sum(labour[g] * make[g] for g in labour) <= 220, name="labour_h")
        h.addConstr(sum(cloth[g] * make[g] for g in labour) <= 260, name="cloth_m")
        for g in labour:
            h.addConstr(make[g] <= big_m[g] * rented[g], name=f"line_{g}")

        h.setObjective(
            sum(profit[g] * make[g] - rent[g] * rented[g] for g in labour),
            sense=highspy.ObjSense.kMaximize,
        )
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "big-M of 40 garments per line, which cuts off the best plan",
            (
                "big_m = {g: math.floor(min(220 / labour[g], 260 / cloth[g])) for g in labour}",
                "big_m = {g: 40 for g in labour}",
            ),
        ),
        crash(
            "uses math.floor without importing math (NameError)",
            ("import math\n\n", ""),
        ),
        no_code("truncated"),
    ),
)

ROUTERS = Draft(
    id="router-plant-either-or",
    kind="bigm",
    exercises="either-or capacity constraints switched by one binary, integer output",
    question=text("""
        Kestrel Electronics assembles two routers: the Home model earns $50 each and the Pro
        model earns $40 each. Next month the assembly crew will work at either the Northgate
        plant or the Southgate plant, but not both. At Northgate a Home router takes 3 hours and
        a Pro router 2 hours, with 180 hours available; at Southgate a Home router takes 2 hours
        and a Pro router 4 hours, with 200 hours available. Whichever plant is used, the packing
        contractor can handle at most 70 routers in total, and only whole routers are sold. How
        many routers of each model should be made, and where, to maximise profit, and what is
        that profit in dollars?
    """),
    think=text("""
        Integer h, p for Home and Pro routers and a binary z: z = 0 means Northgate, z = 1
        Southgate. Only the chosen plant's hour limit must hold, so relax the other with a
        big-M: 3h + 2p <= 180 + M_N z and 2h + 4p <= 200 + M_S (1 - z). Packing caps h + p
        at 70, so the largest each left side can be is 3 * 70 = 210 and 4 * 70 = 280;
        M_N = 210 - 180 = 30 and M_S = 280 - 200 = 80 are big enough.
    """),
    model=text("""
        Variables: h, p >= 0 integer; z in {0, 1} (1 = Southgate)
        max 50 h + 40 p
        s.t. 3 h + 2 p <= 180 + 30 z          (Northgate hours, if z = 0)
             2 h + 4 p <= 200 + 80 (1 - z)    (Southgate hours, if z = 1)
             h + p <= 70                      (packing)
    """),
    code=code(
        """
        import pulp

        packing_cap = 70
        m_north = 3 * packing_cap - 180  # largest possible overshoot of Northgate hours
        m_south = 4 * packing_cap - 200  # largest possible overshoot of Southgate hours

        prob = pulp.LpProblem("router_plan", pulp.LpMaximize)
        home = pulp.LpVariable("home", lowBound=0, cat="Integer")
        pro = pulp.LpVariable("pro", lowBound=0, cat="Integer")
        south = pulp.LpVariable("use_southgate", cat="Binary")

        prob += 50 * home + 40 * pro
        prob += 3 * home + 2 * pro <= 180 + m_north * south, "northgate_hours"
        prob += 2 * home + 4 * pro <= 200 + m_south * (1 - south), "southgate_hours"
        prob += home + pro <= packing_cap, "packing"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "imposes both plants' hour limits instead of either one",
            ("<= 180 + m_north * south,", "<= 180,"),
            ("<= 200 + m_south * (1 - south),", "<= 200,"),
        ),
        crash(
            "British spelling of the PuLP constant (AttributeError)",
            (
                'pulp.LpProblem("router_plan", pulp.LpMaximize)',
                'pulp.LpProblem("router_plan", pulp.LpMaximise)',
            ),
        ),
        bad_format("model-first"),
    ),
)

COCOA = Draft(
    id="cocoa-supplier-minimums",
    kind="bigm",
    exercises="minimum order quantities and order fees (semi-continuous purchases)",
    question=text("""
        Orion Foods needs exactly 3,600 kg of cocoa beans next month and can buy them from three
        suppliers. Supplier 1 charges $2.10 per kg, requires an order of at least 1,500 kg if
        used, can deliver at most 3,000 kg and charges a $600 order fee. Supplier 2 charges $2.25
        per kg, with a minimum order of 1,000 kg, at most 2,500 kg and a $250 fee. Supplier 3
        charges $2.40 per kg, with a minimum order of 800 kg, at most 2,000 kg and a $100 fee.
        A supplier that is not used receives no order and charges no fee. How much should be
        ordered from each supplier to minimise the total cost, and what is that cost in dollars?
    """),
    think=text("""
        Continuous kilograms x_i and binary use_i per supplier. If used, the order lies between
        the minimum and the maximum; if not, it is zero: min_i use_i <= x_i <= max_i use_i
        (the maximum plays the role of big-M). Orders add to exactly 3600 kg. Cost is price
        times kg plus the fee of each supplier used.
    """),
    model=text("""
        Variables: x_i >= 0, u_i in {0, 1}, i = 1..3
        min 2.10 x1 + 2.25 x2 + 2.40 x3 + 600 u1 + 250 u2 + 100 u3
        s.t. x1 + x2 + x3 = 3600
             x_i >= min_i u_i    for each supplier
             x_i <= max_i u_i    for each supplier
    """),
    code=code(
        """
        import highspy

        price = [2.10, 2.25, 2.40]
        min_kg = [1500, 1000, 800]
        max_kg = [3000, 2500, 2000]
        fee = [600, 250, 100]
        suppliers = range(3)

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        buy = [h.addVariable(lb=0, name=f"kg_{i + 1}") for i in suppliers]
        use = [h.addBinary(name=f"use_{i + 1}") for i in suppliers]

        h.addConstr(sum(buy) == 3600, name="need_kg")
        for i in suppliers:
            h.addConstr(buy[i] >= min_kg[i] * use[i], name=f"min_order_{i + 1}")
            h.addConstr(buy[i] <= max_kg[i] * use[i], name=f"max_order_{i + 1}")

        h.setObjective(
            sum(price[i] * buy[i] + fee[i] * use[i] for i in suppliers),
            sense=highspy.ObjSense.kMinimize,
        )
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "minimum order quantities forgotten",
            ('    h.addConstr(buy[i] >= min_kg[i] * use[i], name=f"min_order_{i + 1}")\n', ""),
        ),
        wrong(
            "order fees left out of the cost",
            (
                "sum(price[i] * buy[i] + fee[i] * use[i] for i in suppliers)",
                "sum(price[i] * buy[i] for i in suppliers)",
            ),
        ),
        no_code("empty-python"),
    ),
)

GENERATORS = Draft(
    id="generator-unit-commitment",
    kind="bigm",
    exercises="unit commitment: on/off binaries with minimum and maximum output and a reserve",
    question=text("""
        Ridgeway Power must supply exactly 1,150 MW during the evening peak hour. It has a coal
        unit that, if running, must produce between 300 and 600 MW at $22 per MWh plus a $2,000
        charge for running; a gas combined-cycle unit that must produce between 150 and 400 MW
        when running, at $35 per MWh plus $800 for running; and a gas peaker that must produce
        between 50 and 200 MW when running, at $60 per MWh plus $200 for running. A unit that is
        off produces nothing and costs nothing. A hydro station can add anything from 0 to 180
        MW at $8 per MWh and is always available. For safety, the maximum outputs of the running
        units plus the full 180 MW of hydro must add up to at least 1,265 MW. Which units should
        run and at what output to minimise the cost of the hour, and what is that cost in
        dollars?
    """),
    think=text("""
        For each thermal unit a binary on_u and a continuous output g_u with
        min_u on_u <= g_u <= max_u on_u. Hydro is a continuous 0..180. Total output equals
        1150. Reserve: sum_u max_u on_u + 180 >= 1265. Minimise energy cost plus running
        charges of the units that are on.
    """),
    model=text("""
        Variables: g_u >= 0, on_u in {0, 1} for u in {coal, ccgt, peaker}; 0 <= hydro <= 180
        min 22 g_coal + 35 g_ccgt + 60 g_peak + 8 hydro + 2000 on_coal + 800 on_ccgt + 200 on_peak
        s.t. g_coal + g_ccgt + g_peak + hydro = 1150
             600 on_coal + 400 on_ccgt + 200 on_peak + 180 >= 1265
             min_u on_u <= g_u <= max_u on_u   for each thermal unit u
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        units = {
            # name: (min MW, max MW, $ per MWh, $ for running)
            "coal": (300, 600, 22, 2000),
            "ccgt": (150, 400, 35, 800),
            "peaker": (50, 200, 60, 200),
        }
        demand_mw, hydro_mw, reserve_mw = 1150, 180, 1265

        solver = pywraplp.Solver.CreateSolver("SCIP")
        on = {u: solver.BoolVar(f"on_{u}") for u in units}
        out = {u: solver.NumVar(0, solver.infinity(), f"mw_{u}") for u in units}
        hydro = solver.NumVar(0, hydro_mw, "mw_hydro")

        solver.Add(sum(out.values()) + hydro == demand_mw, "demand")
        solver.Add(sum(units[u][1] * on[u] for u in units) + hydro_mw >= reserve_mw, "reserve")
        for u, (low, high, _, _) in units.items():
            solver.Add(out[u] >= low * on[u], f"min_{u}")
            solver.Add(out[u] <= high * on[u], f"max_{u}")

        solver.Minimize(
            sum(units[u][2] * out[u] + units[u][3] * on[u] for u in units) + 8 * hydro
        )
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "the reserve requirement is forgotten",
            (
                "solver.Add(sum(units[u][1] * on[u] for u in units) + hydro_mw >= reserve_mw, "
                '"reserve")\n',
                "",
            ),
        ),
        wrong(
            "minimum stable outputs ignored (a running unit may produce 0 MW)",
            ('    solver.Add(out[u] >= low * on[u], f"min_{u}")\n', ""),
        ),
        bad_format("code-before-model"),
    ),
)

SHELVES = Draft(
    id="warehouse-mezzanine-expansion",
    kind="bigm",
    exercises="optional expansion: integer modules allowed only if a binary build decision is made",
    question=text("""
        Pinecrest Distribution can install shelving modules to rent out pallet storage. Each
        module earns $95 a week. Up to 12 modules fit in the existing hall. More can go on a new
        mezzanine, which would cost $1,400 a week (amortised) and hold up to 30 modules; without
        the mezzanine, no modules can go there. Installing a module takes 6 crew hours in the
        hall and 9 crew hours on the mezzanine, and the crew has 300 hours. Each module holds 40
        pallets and the fire code allows at most 1,500 pallets in the building. Modules are
        installed whole. How many modules should go in the hall and on the mezzanine, and should
        the mezzanine be built, to maximise weekly earnings net of the mezzanine cost? What are
        those net weekly earnings in dollars?
    """),
    think=text("""
        Integer hall modules (0..12), integer mezzanine modules, binary build. The mezzanine
        holds modules only if built: mezz <= 30 build. Crew hours 6 hall + 9 mezz <= 300;
        fire code 40 (hall + mezz) <= 1500. Maximise 95 per module minus 1400 build.
    """),
    model=text("""
        Variables: 0 <= a <= 12 integer (hall), m >= 0 integer (mezzanine), b in {0, 1}
        max 95 a + 95 m - 1400 b
        s.t. m <= 30 b
             6 a + 9 m <= 300
             40 a + 40 m <= 1500
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        hall = h.addIntegral(lb=0, ub=12, name="hall_modules")
        mezz = h.addIntegral(lb=0, name="mezzanine_modules")
        build = h.addBinary(name="build_mezzanine")

        h.addConstr(mezz <= 30 * build, name="mezzanine_exists")
        h.addConstr(6 * hall + 9 * mezz <= 300, name="crew_hours")
        h.addConstr(40 * hall + 40 * mezz <= 1500, name="fire_code")

        h.setObjective(95 * hall + 95 * mezz - 1400 * build, sense=highspy.ObjSense.kMaximize)
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "big-M of 20 modules instead of the mezzanine's 30",
            ("mezz <= 30 * build", "mezz <= 20 * build"),
        ),
        wrong(
            "the mezzanine's weekly cost is left out",
            ("95 * hall + 95 * mezz - 1400 * build", "95 * hall + 95 * mezz"),
        ),
        hang(
            "grows its big-M by doubling from 0, which never reaches 30",
            (
                "h.addConstr(mezz <= 30 * build,",
                "big_m = 0\n"
                "while big_m < 30:  # grow M until it covers the mezzanine\n"
                "    big_m *= 2\n"
                "h.addConstr(mezz <= big_m * build,",
            ),
        ),
    ),
)

PRINTING = Draft(
    id="print-job-sequencing",
    kind="bigm",
    exercises="single-machine sequencing with release times: pairwise disjunctions with big-M",
    question=text("""
        A print shop has one press and four jobs for today. Job A takes 4 hours, can start at
        hour 0 and has priority weight 2; job B takes 6 hours, can start at hour 1 and has
        weight 1; job C takes 3 hours, can start at hour 2 and has weight 3; job D takes 5 hours,
        can start at hour 0 and has weight 2. The press runs one job at a time and a job, once
        started, runs to the end. In what order should the jobs run to minimise the sum of each
        job's weight times its finishing time (in hours), and what is that minimum weighted sum?
    """),
    think=text("""
        Continuous completion times C_j with C_j >= release_j + duration_j. For every pair
        (i, j) a binary before_ij decides the order: if i goes first, C_j >= C_i + p_j,
        otherwise C_i >= C_j + p_i; the unused side is relaxed with a big-M. The latest any job
        can finish is max release + total duration = 2 + 18 = 20, so M = 20 is safe.
        Minimise the weighted sum of completion times.
    """),
    model=text("""
        Variables: C_j >= r_j + p_j; y_ij in {0, 1} for i < j (1 = i before j)
        min 2 C_A + C_B + 3 C_C + 2 C_D
        s.t. C_j >= C_i + p_j - M (1 - y_ij)   for i < j
             C_i >= C_j + p_i - M y_ij         for i < j
        with M = 20
    """),
    code=code(
        """
        import itertools

        import pulp

        duration = {"A": 4, "B": 6, "C": 3, "D": 5}
        release = {"A": 0, "B": 1, "C": 2, "D": 0}
        weight = {"A": 2, "B": 1, "C": 3, "D": 2}
        big_m = max(release.values()) + sum(duration.values())

        prob = pulp.LpProblem("press_sequence", pulp.LpMinimize)
        done = {
            j: pulp.LpVariable(f"finish_{j}", lowBound=release[j] + duration[j]) for j in duration
        }
        pairs = list(itertools.combinations(sorted(duration), 2))
        first = {(i, j): pulp.LpVariable(f"{i}_before_{j}", cat="Binary") for i, j in pairs}

        prob += pulp.lpSum(weight[j] * done[j] for j in duration)
        for i, j in pairs:
            prob += done[j] >= done[i] + duration[j] - big_m * (1 - first[i, j]), f"{i}_then_{j}"
            prob += done[i] >= done[j] + duration[i] - big_m * first[i, j], f"{j}_then_{i}"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "big-M of 5 hours, too small to relax the unused order",
            ("big_m = max(release.values()) + sum(duration.values())", "big_m = 5"),
        ),
        wrong(
            "release times ignored (every job may start at hour 0)",
            ("lowBound=release[j] + duration[j])", "lowBound=duration[j])"),
        ),
        bad_format("no-think"),
    ),
)

DRAFTS = [TEXTILES, ROUTERS, COCOA, GENERATORS, SHELVES, PRINTING]
