"""Linear programs: continuous variables only."""

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

BAKERY = Draft(
    id="bakery-weekly-mix",
    kind="lp",
    exercises="product mix with three resources and a minimum-delivery contract",
    question=text("""
        Hearthstone Bakery bakes three kinds of loaf: sourdough, rye and seeded. A sourdough
        loaf uses 0.5 kg of flour, 12 minutes of oven time and 6 minutes of shaping labour, and
        earns a profit of $2.40. A rye loaf uses 0.4 kg of flour, 15 minutes of oven time and
        4 minutes of labour, and earns $2.10. A seeded loaf uses 0.6 kg of flour, 10 minutes of
        oven time and 8 minutes of labour, and earns $2.90. Each week the bakery has 600 kg of
        flour, 240 hours of oven time and 160 hours of shaping labour. The cafe it supplies has
        a standing order for at least 150 rye loaves a week. The plan is a weekly average, so
        fractional loaf counts are acceptable. How many loaves of each kind should the bakery
        plan per week to maximise its weekly profit, and what is that profit in dollars?
    """),
    think=text("""
        Three continuous decisions: weekly loaves of sourdough, rye and seeded. Profit is linear
        in them. Resources: flour in kg, oven and labour given in hours, so convert to minutes
        (240 h = 14400 min, 160 h = 9600 min) to match the per-loaf minutes. The cafe order is
        a lower bound of 150 on rye. Maximise profit.
    """),
    model=text("""
        Variables: s, r, d >= 0 (sourdough, rye, seeded loaves per week)
        max 2.40 s + 2.10 r + 2.90 d
        s.t. 0.5 s + 0.4 r + 0.6 d <= 600      (flour, kg)
             12 s + 15 r + 10 d <= 14400       (oven, min)
             6 s + 4 r + 8 d <= 9600           (labour, min)
             r >= 150                          (cafe order)
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)

        sourdough = h.addVariable(lb=0, name="sourdough")
        rye = h.addVariable(lb=0, name="rye")
        seeded = h.addVariable(lb=0, name="seeded")

        h.addConstr(0.5 * sourdough + 0.4 * rye + 0.6 * seeded <= 600, name="flour_kg")
        h.addConstr(12 * sourdough + 15 * rye + 10 * seeded <= 14400, name="oven_min")
        h.addConstr(6 * sourdough + 4 * rye + 8 * seeded <= 9600, name="labour_min")
        h.addConstr(rye >= 150, name="cafe_rye")

        h.setObjective(
            2.40 * sourdough + 2.10 * rye + 2.90 * seeded, sense=highspy.ObjSense.kMaximize
        )
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "oven time left in hours (240) while the coefficients are minutes",
            ("<= 14400, name=", "<= 240, name="),
        ),
        wrong(
            "the flour constraint is forgotten",
            (
                'h.addConstr(0.5 * sourdough + 0.4 * rye + 0.6 * seeded <= 600, name="flour_kg")\n',
                "",
            ),
        ),
        bad_format("no-think"),
    ),
)

FEED = Draft(
    id="cattle-feed-blend",
    kind="lp",
    exercises="blending with percentage specifications and a batch-size equality",
    question=text("""
        Prairie Feeds mixes cattle feed in batches of exactly 1,000 kg from three ingredients:
        corn at $0.30 per kg, soybean meal at $0.90 per kg and oats at $0.25 per kg. Corn is 9%
        protein and 2% fibre, soybean meal is 44% protein and 7% fibre, and oats are 11% protein
        and 10% fibre (by weight). A batch must contain at least 18% protein and at most 6%
        fibre, and to keep the texture right oats may make up at most 40% of the batch. What is
        the lowest cost, in dollars, of one 1,000 kg batch that meets the specification?
    """),
    think=text("""
        Decide kilograms of corn, soybean meal and oats in one batch. The weights must add to
        exactly 1000 kg. Percentages of the batch become kilogram limits: protein at least
        0.18 * 1000 = 180 kg, fibre at most 60 kg, oats at most 400 kg. Minimise cost.
    """),
    model=text("""
        Variables: c, b, o >= 0 (kg of corn, soybean meal, oats)
        min 0.30 c + 0.90 b + 0.25 o
        s.t. c + b + o = 1000
             0.09 c + 0.44 b + 0.11 o >= 180
             0.02 c + 0.07 b + 0.10 o <= 60
             o <= 400
    """),
    code=code(
        """
        import pulp

        prob = pulp.LpProblem("cattle_feed", pulp.LpMinimize)
        corn = pulp.LpVariable("corn", lowBound=0)
        soy = pulp.LpVariable("soybean_meal", lowBound=0)
        oats = pulp.LpVariable("oats", lowBound=0)

        prob += 0.30 * corn + 0.90 * soy + 0.25 * oats
        prob += corn + soy + oats == 1000, "batch_kg"
        prob += 0.09 * corn + 0.44 * soy + 0.11 * oats >= 180, "protein_kg"
        prob += 0.02 * corn + 0.07 * soy + 0.10 * oats <= 60, "fibre_kg"
        prob += oats <= 400, "oats_share"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "protein requirement written as 18 kg instead of 18% of 1000 kg",
            (">= 180, ", ">= 18, "),
        ),
        crash(
            "misspelt variable name (NameError)",
            ("prob += oats <= 400", "prob += oat <= 400"),
        ),
        no_code("truncated"),
    ),
)

REFINERY = Draft(
    id="refinery-crude-purchase",
    kind="lp",
    exercises="covering demand with yield coefficients and a shared capacity",
    question=text("""
        The Gulfside refinery buys two crude oils for next week. Each barrel of Light crude costs
        $78 and yields 0.45 barrels of gasoline, 0.20 barrels of jet fuel and 0.25 barrels of
        diesel. Each barrel of Heavy crude costs $65 and yields 0.25 barrels of gasoline, 0.15
        barrels of jet fuel and 0.45 barrels of diesel. Contracts require at least 18,000 barrels
        of gasoline, 8,000 barrels of jet fuel and 15,000 barrels of diesel next week, and the
        dock can unload at most 50,000 barrels of crude in total. How many barrels of each crude
        should be bought to meet the contracts at minimum cost, and what is that cost in
        thousands of dollars?
    """),
    think=text("""
        Two decisions: barrels of Light and of Heavy crude. Each product's output is the
        yield-weighted sum and must cover its contract. Total crude is limited by the dock.
        Minimise the purchase cost; the answer is asked in thousands of dollars, so the cost
        coefficients become 0.078 and 0.065 per barrel.
    """),
    model=text("""
        Variables: L, H >= 0 (barrels of Light and Heavy crude)
        min 0.078 L + 0.065 H   (thousand dollars)
        s.t. 0.45 L + 0.25 H >= 18000   (gasoline)
             0.20 L + 0.15 H >= 8000    (jet fuel)
             0.25 L + 0.45 H >= 15000   (diesel)
             L + H <= 50000             (dock)
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        solver = pywraplp.Solver.CreateSolver("GLOP")
        light = solver.NumVar(0, solver.infinity(), "light")
        heavy = solver.NumVar(0, solver.infinity(), "heavy")

        solver.Add(0.45 * light + 0.25 * heavy >= 18000, "gasoline")
        solver.Add(0.20 * light + 0.15 * heavy >= 8000, "jet_fuel")
        solver.Add(0.25 * light + 0.45 * heavy >= 15000, "diesel")
        solver.Add(light + heavy <= 50000, "dock")

        solver.Minimize(0.078 * light + 0.065 * heavy)
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "diesel yields of the two crudes swapped",
            ("0.25 * light + 0.45 * heavy >= 15000", "0.45 * light + 0.25 * heavy >= 15000"),
        ),
        crash(
            "calls a solver method that does not exist",
            (
                "solver.Minimize(0.078 * light + 0.065 * heavy)",
                "solver.SetMinimize(0.078 * light + 0.065 * heavy)",
            ),
        ),
        bad_format("model-first"),
    ),
)

SHIPPING = Draft(
    id="plant-to-store-shipping",
    kind="lp",
    exercises="transportation problem with supply and demand constraints (12 variables)",
    question=text("""
        Three bottling plants supply four supermarkets with cases of sparkling water. This week
        the Akron plant can ship at most 300 cases, Bristol at most 250 and Clifton at most 200.
        Store 1 needs 180 cases, store 2 needs 220, store 3 needs 150 and store 4 needs 160, and
        each store must receive at least what it needs. The shipping cost per case is: from
        Akron $4 to store 1, $6 to store 2, $9 to store 3 and $5 to store 4; from Bristol $7,
        $3, $5 and $8; from Clifton $6, $8, $4 and $3. How should the cases be shipped to
        minimise the total shipping cost, and what is that cost in dollars?
    """),
    think=text("""
        Classic transportation problem: one flow variable per plant-store pair (3 x 4 = 12).
        Each plant ships no more than its supply; each store receives at least its demand.
        Total supply 750 exceeds total demand 710, so the problem is feasible. Minimise the
        cost-weighted sum of flows.
    """),
    model=text("""
        Variables: x[p, s] >= 0, cases from plant p to store s
        min sum_{p,s} cost[p, s] x[p, s]
        s.t. sum_s x[p, s] <= supply[p]   for each plant p
             sum_p x[p, s] >= demand[s]   for each store s
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        supply = {"akron": 300, "bristol": 250, "clifton": 200}
        demand = {1: 180, 2: 220, 3: 150, 4: 160}
        cost = {
            "akron": {1: 4, 2: 6, 3: 9, 4: 5},
            "bristol": {1: 7, 2: 3, 3: 5, 4: 8},
            "clifton": {1: 6, 2: 8, 3: 4, 4: 3},
        }

        solver = pywraplp.Solver.CreateSolver("GLOP")
        ship = {
            (p, s): solver.NumVar(0, solver.infinity(), f"ship_{p}_{s}")
            for p in supply
            for s in demand
        }
        for p in supply:
            solver.Add(sum(ship[p, s] for s in demand) <= supply[p], f"supply_{p}")
        for s in demand:
            solver.Add(sum(ship[p, s] for p in supply) >= demand[s], f"demand_{s}")

        solver.Minimize(sum(cost[p][s] * ship[p, s] for p in supply for s in demand))
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "store demand written as an upper limit, so shipping nothing looks optimal",
            (") >= demand[s], ", ") <= demand[s], "),
        ),
        crash(
            "looks up a store that does not exist (KeyError)",
            (
                "demand = {1: 180, 2: 220, 3: 150, 4: 160}",
                "demand = {1: 180, 2: 220, 3: 150, 5: 160}",
            ),
        ),
        no_code("empty-python"),
    ),
)

ADVERTISING = Draft(
    id="launch-ad-budget",
    kind="lp",
    exercises="budget allocation with a proportional (share-of-total) constraint",
    question=text("""
        Brightside Media has a budget of $120,000 to promote a product launch on television,
        radio and online display ads. Every $1,000 spent reaches about 12,500 people on
        television, 11,000 people on radio and 9,000 people online. Only $50,000 of television
        airtime is available. The client insists that online spending be at least 25% of the
        total amount spent, and that radio spending not exceed television spending. How should
        the budget be split to maximise the number of people reached, and how many people (in
        thousands) does the best plan reach?
    """),
    think=text("""
        Work in thousands of dollars: t, r, o spent on TV, radio and online. Reach in thousands
        of people is 12.5 t + 11 r + 9 o. Budget t + r + o <= 120. TV inventory t <= 50.
        Online share: o >= 0.25 (t + r + o), i.e. 0.75 o - 0.25 t - 0.25 r >= 0.
        Radio at most TV: r - t <= 0. Maximise reach.
    """),
    model=text("""
        Variables: t, r, o >= 0 (thousand dollars on TV, radio, online)
        max 12.5 t + 11 r + 9 o   (thousand people)
        s.t. t + r + o <= 120
             t <= 50
             -0.25 t - 0.25 r + 0.75 o >= 0
             r - t <= 0
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)

        tv = h.addVariable(lb=0, name="tv_k")
        radio = h.addVariable(lb=0, name="radio_k")
        online = h.addVariable(lb=0, name="online_k")

        h.addConstr(tv + radio + online <= 120, name="budget")
        h.addConstr(tv <= 50, name="tv_airtime")
        h.addConstr(online >= 0.25 * (tv + radio + online), name="online_share")
        h.addConstr(radio <= tv, name="radio_vs_tv")

        h.setObjective(12.5 * tv + 11 * radio + 9 * online, sense=highspy.ObjSense.kMaximize)
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "online share written as at least 0.25 thousand dollars instead of 25% of spend",
            ("online >= 0.25 * (tv + radio + online)", "online >= 0.25"),
        ),
        wrong(
            "sense swapped: minimises reach",
            ("sense=highspy.ObjSense.kMaximize", "sense=highspy.ObjSense.kMinimize"),
        ),
        crash(
            "reads an objective attribute that HiGHS does not have",
            ("h.getInfo().objective_function_value", "h.getInfo().objective_value"),
        ),
    ),
)

PUMPS = Draft(
    id="quarterly-pump-production",
    kind="lp",
    exercises="multi-period production with overtime, inventory balance and an end stock",
    question=text("""
        Northwind Pumps must meet demand of 400, 650, 500 and 700 pumps in the four quarters of
        next year. In each quarter it can make up to 500 pumps on regular time at $120 each and
        up to 150 more on overtime at $165 each. Every pump in stock at the end of a quarter,
        the fourth quarter included, costs $18 to store. The company starts the year with 50
        pumps in stock and wants at least 80 in stock at the end of the fourth quarter. Demand
        must be met in the quarter it occurs. What production plan minimises total production
        and storage cost over the year, and what is that cost in dollars?
    """),
    think=text("""
        For each quarter q: regular production R_q in [0, 500], overtime O_q in [0, 150], and
        end-of-quarter stock I_q >= 0. Balance: previous stock + R_q + O_q - demand_q = I_q,
        with the initial stock 50 before quarter 1. The final stock I_4 must be at least 80.
        Storage is charged on each end-of-quarter stock carried forward (I_1..I_4).
        Minimise 120 sum R + 165 sum O + 18 sum I.
    """),
    model=text("""
        Variables: 0 <= R_q <= 500, 0 <= O_q <= 150, I_q >= 0 for q = 1..4
        min sum_q (120 R_q + 165 O_q + 18 I_q)
        s.t. 50 + R_1 + O_1 - I_1 = 400
             I_{q-1} + R_q + O_q - I_q = d_q   for q = 2, 3, 4
             I_4 >= 80
    """),
    code=code(
        """
        import pulp

        demand = [400, 650, 500, 700]
        quarters = range(len(demand))

        prob = pulp.LpProblem("pump_plan", pulp.LpMinimize)
        regular = [pulp.LpVariable(f"regular_{q + 1}", 0, 500) for q in quarters]
        overtime = [pulp.LpVariable(f"overtime_{q + 1}", 0, 150) for q in quarters]
        stock = [pulp.LpVariable(f"stock_{q + 1}", 0) for q in quarters]

        prob += pulp.lpSum(120 * regular[q] + 165 * overtime[q] + 18 * stock[q] for q in quarters)
        for q in quarters:
            previous = 50 if q == 0 else stock[q - 1]
            prob += previous + regular[q] + overtime[q] - stock[q] == demand[q], f"balance_{q + 1}"
        prob += stock[-1] >= 80, "end_stock"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "ignores the 50 pumps in stock at the start of the year",
            ("previous = 50 if q == 0 else", "previous = 0 if q == 0 else"),
        ),
        hang(
            "re-solves in a loop waiting for the cost to drop below a guessed target",
            (
                "prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0))\n",
                "prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0))\n"
                "while pulp.value(prob.objective) > 250000:  # keep improving the plan\n"
                "    prob.solve(pulp.PULP_CBC_CMD(msg=False, gapRel=0))\n",
            ),
        ),
        bad_format("untagged-model"),
    ),
)

BONDS = Draft(
    id="pension-bond-portfolio",
    kind="lp",
    exercises="portfolio LP with an equality budget, a weighted-average limit and share caps",
    question=text("""
        The Fenwick Pension Fund will invest exactly $10 million across four bonds. The municipal
        bond yields 4.2% a year and has a duration of 6 years; corporate bond A yields 5.8% with
        a duration of 9 years; corporate bond B yields 7.1% with a duration of 4 years; and the
        treasury bond yields 3.6% with a duration of 3 years. The fund's rules are: at least 30%
        of the money must be in the treasury and municipal bonds combined; at most 25% may be in
        corporate bond B; no single bond may hold more than 40% of the money; and the
        money-weighted average duration may not exceed 6 years. How much should go into each
        bond to maximise the annual interest income, and what is that income in thousands of
        dollars?
    """),
    think=text("""
        Work in thousands of dollars: m, a, b, t invested, total exactly 10000. Income is the
        yield-weighted sum. Treasury + municipal >= 3000, corporate B <= 2500, each bond <= 4000
        (a bound), and the weighted average duration (6m + 9a + 4b + 3t) / 10000 <= 6, which is
        linear once multiplied out: 6m + 9a + 4b + 3t <= 60000.
    """),
    model=text("""
        Variables: 0 <= m, a, b, t <= 4000 (thousand dollars)
        max 0.042 m + 0.058 a + 0.071 b + 0.036 t
        s.t. m + a + b + t = 10000
             m + t >= 3000
             b <= 2500
             6 m + 9 a + 4 b + 3 t <= 60000
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)

        cap = 4000  # no bond above 40% of $10m, in thousands
        muni = h.addVariable(lb=0, ub=cap, name="municipal")
        corp_a = h.addVariable(lb=0, ub=cap, name="corporate_a")
        corp_b = h.addVariable(lb=0, ub=cap, name="corporate_b")
        treasury = h.addVariable(lb=0, ub=cap, name="treasury")

        h.addConstr(muni + corp_a + corp_b + treasury == 10000, name="invest_all")
        h.addConstr(muni + treasury >= 3000, name="safe_share")
        h.addConstr(corp_b <= 2500, name="corp_b_cap")
        h.addConstr(6 * muni + 9 * corp_a + 4 * corp_b + 3 * treasury <= 60000, name="duration")

        h.setObjective(
            0.042 * muni + 0.058 * corp_a + 0.071 * corp_b + 0.036 * treasury,
            sense=highspy.ObjSense.kMaximize,
        )
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "duration limit forgotten",
            (
                "h.addConstr(6 * muni + 9 * corp_a + 4 * corp_b + 3 * treasury <= 60000,"
                ' name="duration")\n',
                "",
            ),
        ),
        crash(
            "passes the yield list where HiGHS expects an expression",
            (
                "    0.042 * muni + 0.058 * corp_a + 0.071 * corp_b + 0.036 * treasury,",
                "    [0.042, 0.058, 0.071, 0.036],",
            ),
        ),
        no_code("empty-fence"),
    ),
)

DAIRY = Draft(
    id="dairy-milk-allocation",
    kind="lp",
    exercises="allocating one raw material across products with unit conversions",
    question=text("""
        Valley Dairy receives 12,000 litres of raw milk every day and turns it into cheese,
        yoghurt and butter. A kilogram of cheese takes 10 litres of milk and earns $3.20 profit;
        a kilogram of yoghurt takes 1.2 litres and earns $0.55; a kilogram of butter takes 22
        litres and earns $4.10. The packing line can handle at most 5,000 kg of finished product
        a day in total, the cheese vats hold at most 600 kg a day, and buyers will take at most
        4,000 kg of yoghurt a day. Not all of the milk has to be used. How many kilograms of
        each product should the dairy make per day to maximise profit, and what is the daily
        profit in dollars?
    """),
    think=text("""
        Decide kilograms of cheese, yoghurt and butter per day. Milk use is litres per kg times
        kg, at most 12000. Packing limits total kg to 5000. The vat caps cheese at 600 kg and
        demand caps yoghurt at 4000 kg. Maximise profit.
    """),
    model=text("""
        Variables: c, y, b >= 0 (kg per day)
        max 3.20 c + 0.55 y + 4.10 b
        s.t. 10 c + 1.2 y + 22 b <= 12000   (milk, litres)
             c + y + b <= 5000             (packing)
             c <= 600                      (cheese vats)
             y <= 4000                     (yoghurt demand)
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        solver = pywraplp.Solver.CreateSolver("GLOP")
        inf = solver.infinity()
        cheese = solver.NumVar(0, inf, "cheese_kg")
        yoghurt = solver.NumVar(0, inf, "yoghurt_kg")
        butter = solver.NumVar(0, inf, "butter_kg")

        solver.Add(10 * cheese + 1.2 * yoghurt + 22 * butter <= 12000, "milk_litres")
        solver.Add(cheese + yoghurt + butter <= 5000, "packing_kg")
        solver.Add(cheese <= 600, "cheese_vats")
        solver.Add(yoghurt <= 4000, "yoghurt_demand")

        solver.Maximize(3.20 * cheese + 0.55 * yoghurt + 4.10 * butter)
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "milk per kg of butter taken as 2.2 litres instead of 22",
            ("22 * butter <= 12000", "2.2 * butter <= 12000"),
        ),
        wrong(
            "the cheese vat capacity is forgotten",
            ('solver.Add(cheese <= 600, "cheese_vats")\n', ""),
        ),
        bad_format("code-before-model"),
    ),
)

DRAFTS = [BAKERY, FEED, REFINERY, SHIPPING, ADVERTISING, PUMPS, BONDS, DAIRY]
