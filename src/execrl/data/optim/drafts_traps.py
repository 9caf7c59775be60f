"""Traps: problems whose honest answer is "infeasible" or "unbounded"."""

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

MILL = Draft(
    id="flour-mill-contracts",
    kind="infeasible",
    exercises="trap: minimum contracts exceed milling capacity (infeasible LP)",
    question=text("""
        Granite Mills grinds wheat into flour and bran. Next month the mill can run for 1,200
        hours; a tonne of flour takes 1 hour of milling and a tonne of bran takes 0.8 hours. The
        sales team has signed contracts to deliver at least 900 tonnes of flour and at least
        500 tonnes of bran next month. Flour earns $40 per tonne and bran $25 per tonne. The
        manager asks for the production plan that maximises next month's profit while honouring
        both contracts. What is the maximum profit, in dollars, or is there no such plan?
    """),
    think=text("""
        Continuous tonnes of flour and bran. Milling hours: f + 0.8 b <= 1200. Contracts:
        f >= 900, b >= 500. Maximise 40 f + 25 b. The contracts alone need 900 + 400 = 1300
        hours, more than 1200, so the solver should report the model infeasible; report that
        rather than a number.
    """),
    model=text("""
        Variables: f, b >= 0 (tonnes)
        max 40 f + 25 b
        s.t. f + 0.8 b <= 1200
             f >= 900
             b >= 500
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)

        flour = h.addVariable(lb=0, name="flour_t")
        bran = h.addVariable(lb=0, name="bran_t")

        h.addConstr(flour + 0.8 * bran <= 1200, name="mill_hours")
        h.addConstr(flour >= 900, name="flour_contract")
        h.addConstr(bran >= 500, name="bran_contract")

        h.setObjective(40 * flour + 25 * bran, sense=highspy.ObjSense.kMaximize)
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "drops the bran contract to make the model solvable and reports a profit",
            ('h.addConstr(bran >= 500, name="bran_contract")\n', ""),
        ),
        hang(
            "re-solves until HiGHS reports an optimum, which an infeasible model never gets",
            (
                "h.run()\n",
                "h.run()\n"
                "while h.getModelStatus() != highspy.HighsModelStatus.kOptimal:\n"
                "    h.run()\n",
            ),
        ),
        bad_format("model-first"),
    ),
)

NURSES = Draft(
    id="ward-nurse-budget",
    kind="infeasible",
    exercises="trap: integer staffing minimums cost more than a hard budget (infeasible MILP)",
    question=text("""
        A hospital ward staffs three shifts a day. The day shift needs at least 14 nurses, the
        evening shift at least 10 and the night shift at least 8. A nurse costs $420 for a day
        shift, $450 for an evening shift and $510 for a night shift, and nurses are scheduled
        whole. Night nurses must also be at least a fifth of all nurses scheduled that day.
        The hospital board has capped the ward's daily staffing spend at $13,000. Find the
        cheapest schedule that meets all of these rules and report its daily cost in dollars, or
        report that no schedule can meet them.
    """),
    think=text("""
        Integer nurses per shift: d >= 14, e >= 10, n >= 8. Night share n >= 0.2 (d + e + n).
        Budget 420 d + 450 e + 510 n <= 13000. Minimise the same cost. The minimums alone cost
        14 * 420 + 10 * 450 + 8 * 510 = 14460 > 13000, so no schedule fits the budget: the
        solver should report infeasible.
    """),
    model=text("""
        Variables: d, e, n >= 0 integer
        min 420 d + 450 e + 510 n
        s.t. d >= 14, e >= 10, n >= 8
             n >= 0.2 (d + e + n)
             420 d + 450 e + 510 n <= 13000
    """),
    code=code(
        """
        import pulp

        prob = pulp.LpProblem("ward_roster", pulp.LpMinimize)
        day = pulp.LpVariable("day_nurses", lowBound=0, cat="Integer")
        evening = pulp.LpVariable("evening_nurses", lowBound=0, cat="Integer")
        night = pulp.LpVariable("night_nurses", lowBound=0, cat="Integer")
        cost = 420 * day + 450 * evening + 510 * night

        prob += cost
        prob += day >= 14, "day_cover"
        prob += evening >= 10, "evening_cover"
        prob += night >= 8, "night_cover"
        prob += night >= 0.2 * (day + evening + night), "night_share"
        prob += cost <= 13000, "board_budget"
        """,
        PULP_REPORT,
    ),
    flaws=(
        wrong(
            "treats the board budget as advisory and drops it",
            ('prob += cost <= 13000, "board_budget"\n', ""),
        ),
        crash(
            "misspells the LP writer (writeLp), an AttributeError",
            ('prob.writeLP("model.lp")', 'prob.writeLp("model.lp")'),
        ),
        no_code("empty-fence"),
    ),
)

PROTEIN = Draft(
    id="premium-blend-protein",
    kind="infeasible",
    exercises="trap: blend specification above every ingredient's content (infeasible LP)",
    question=text("""
        A pet-food maker wants a 500 kg batch of a premium dry blend made from chicken meal,
        fish meal and pea protein. Chicken meal is 33% protein and costs $1.60 per kg, fish meal
        is 35% protein and costs $2.10 per kg, and pea protein concentrate is 30% protein and
        costs $1.20 per kg. Marketing wants to print "at least 40% protein" on the bag, so the
        blend must contain at least 40% protein by weight. What is the cheapest blend that meets
        this, with its cost in dollars, or can it not be made?
    """),
    think=text("""
        Kilograms of each ingredient adding to 500. Protein at least 0.40 * 500 = 200 kg.
        The richest ingredient is 35% protein, so at most 175 kg of protein is possible:
        infeasible. Build the model anyway and let the solver confirm it.
    """),
    model=text("""
        Variables: c, f, p >= 0 (kg)
        min 1.60 c + 2.10 f + 1.20 p
        s.t. c + f + p = 500
             0.33 c + 0.35 f + 0.30 p >= 200
    """),
    code=code(
        """
        from ortools.linear_solver import pywraplp

        solver = pywraplp.Solver.CreateSolver("GLOP")
        inf = solver.infinity()
        chicken = solver.NumVar(0, inf, "chicken_kg")
        fish = solver.NumVar(0, inf, "fish_kg")
        pea = solver.NumVar(0, inf, "pea_kg")

        solver.Add(chicken + fish + pea == 500, "batch_kg")
        solver.Add(0.33 * chicken + 0.35 * fish + 0.30 * pea >= 0.40 * 500, "protein_kg")

        solver.Minimize(1.60 * chicken + 2.10 * fish + 1.20 * pea)
        """,
        ORTOOLS_REPORT,
    ),
    flaws=(
        wrong(
            "prints an objective of 0 whenever the solve fails",
            (
                'elif result == pywraplp.Solver.INFEASIBLE:\n    print("status: infeasible")',
                'elif result == pywraplp.Solver.INFEASIBLE:\n    print("objective: 0")',
            ),
        ),
        wrong(
            "protein written as 40 kg (0.40 of 100) instead of 40% of the 500 kg batch",
            (">= 0.40 * 500, ", ">= 0.40 * 100, "),
        ),
        no_code("truncated"),
    ),
)

GRAIN = Draft(
    id="grain-trading-desk",
    kind="unbounded",
    exercises="trap: an unlimited profitable activity (unbounded LP)",
    question=text("""
        A grain trading desk buys wheat at port A for $210 a tonne and sells it to a mill buyer
        for $236 a tonne after paying $14 a tonne for shipping; the mill buyer has said it will
        take any quantity, and the desk has unlimited credit. The desk also trades barley at a
        net margin of $3 a tonne; barley must pass through the port B silo, which holds 5,000
        tonnes, and the desk has promised a customer at least 200 tonnes of barley. Maximise the
        desk's trading profit for the month and report it in dollars, or explain that it has
        no finite maximum.
    """),
    think=text("""
        Tonnes of wheat w and barley b. Wheat earns 236 - 210 - 14 = 12 per tonne with no
        limit at all; barley earns 3 with 200 <= b <= 5000. Nothing bounds w, so the profit
        grows without limit: the model is unbounded, which the solver should report.
    """),
    model=text("""
        Variables: w, b >= 0 (tonnes)
        max 12 w + 3 b
        s.t. b <= 5000
             b >= 200
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)

        wheat = h.addVariable(lb=0, name="wheat_t")
        barley = h.addVariable(lb=0, name="barley_t")

        h.addConstr(barley <= 5000, name="silo_t")
        h.addConstr(barley >= 200, name="barley_promise")

        h.setObjective((236 - 210 - 14) * wheat + 3 * barley, sense=highspy.ObjSense.kMaximize)
        """,
        HIGHS_REPORT,
    ),
    flaws=(
        wrong(
            "invents a 10,000 t wheat limit that the question does not give",
            (
                'wheat = h.addVariable(lb=0, name="wheat_t")',
                'wheat = h.addVariable(lb=0, ub=10000, name="wheat_t")',
            ),
        ),
        wrong(
            "reports every non-optimal status as infeasible",
            (
                "elif status == highspy.HighsModelStatus.kInfeasible:\n"
                '    print("status: infeasible")\n'
                "elif status == highspy.HighsModelStatus.kUnbounded:\n"
                '    print("status: unbounded")\n'
                "else:\n"
                '    raise RuntimeError(f"HiGHS stopped with status '
                '{h.modelStatusToString(status)}")\n',
                'else:\n    print("status: infeasible")\n',
            ),
        ),
        crash(
            "sets the objective sense through an enum member that does not exist",
            ("sense=highspy.ObjSense.kMaximize", "sense=highspy.ObjSense.kMax"),
        ),
    ),
)

AD_PACKS = Draft(
    id="ad-impression-resale",
    kind="unbounded",
    exercises="trap: unbounded MILP, where presolve only says 'infeasible or unbounded'",
    question=text("""
        Clickstream buys banner impressions wholesale in packs of 1,000 at $2.40 a pack and
        resells them to advertisers in packs of 1,000 at $3.10 a pack; it also sells premium
        video packs at $5.50 each, each made from two wholesale packs plus $0.35 of encoding.
        Wholesale packs and video packs are whole units, while banner impressions may be resold
        in any amount (priced per 1,000). Each wholesale impression can be resold or used for
        video only once, and advertisers will buy as much as Clickstream offers. The only rules
        are that it must buy at least 50 wholesale packs and sell at least 10 video packs this
        month. What is the largest monthly profit Clickstream can make, in dollars, or is there
        no finite maximum?
    """),
    think=text("""
        Integer bought packs w and video packs v; resold banner packs r is continuous (any
        amount of impressions). Usage r + 2 v <= w,
        w >= 50, v >= 10. Profit 3.10 r + (5.50 - 0.35) v - 2.40 w. Each extra wholesale pack
        resold earns 0.70 with no upper limit, so the profit is unbounded. HiGHS's MIP presolve
        may only say "infeasible or unbounded"; in that case re-solve without presolve to tell
        which.
    """),
    model=text("""
        Variables: w, v >= 0 integer; r >= 0
        max 3.10 r + 5.15 v - 2.40 w
        s.t. r + 2 v <= w
             w >= 50
             v >= 10
    """),
    code=code(
        """
        import highspy

        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)

        bought = h.addIntegral(lb=0, name="wholesale_packs")
        resold = h.addVariable(lb=0, name="banner_packs")
        video = h.addIntegral(lb=0, name="video_packs")

        h.addConstr(resold + 2 * video <= bought, name="pack_usage")
        h.addConstr(bought >= 50, name="min_wholesale")
        h.addConstr(video >= 10, name="min_video")

        h.setObjective(
            3.10 * resold + (5.50 - 0.35) * video - 2.40 * bought,
            sense=highspy.ObjSense.kMaximize,
        )
        h.writeModel("model.lp")
        h.run()

        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kUnboundedOrInfeasible:
            h.setOptionValue("presolve", "off")  # presolve cannot tell: solve again
            h.run()
            status = h.getModelStatus()

        if status == highspy.HighsModelStatus.kOptimal:
            print(f"objective: {h.getInfo().objective_function_value:.6f}")
        elif status == highspy.HighsModelStatus.kInfeasible:
            print("status: infeasible")
        elif status == highspy.HighsModelStatus.kUnbounded:
            print("status: unbounded")
        else:
            raise RuntimeError(f"HiGHS stopped with status {h.modelStatusToString(status)}")
        """
    ),
    flaws=(
        wrong(
            "takes presolve's 'infeasible or unbounded' to mean infeasible",
            (
                "if status == highspy.HighsModelStatus.kUnboundedOrInfeasible:\n"
                '    h.setOptionValue("presolve", "off")  # presolve cannot tell: solve again\n'
                "    h.run()\n"
                "    status = h.getModelStatus()\n",
                "if status == highspy.HighsModelStatus.kUnboundedOrInfeasible:\n"
                "    status = highspy.HighsModelStatus.kInfeasible\n",
            ),
        ),
        bad_format("untagged-model"),
    ),
)

DRAFTS = [MILL, NURSES, PROTEIN, GRAIN, AD_PACKS]
