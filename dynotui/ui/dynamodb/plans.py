"""The session's plans and the flow that makes one: the plan screen for the current query;
Enter opens a path as the current order (a new stack, its pages then measured); two marked
paths open side by side in compare; the plan asked for again on a path opened from it
shows that path's row measured; the latest plan goes into the report.

The DynamoDB adapter holds one ``Plans`` and asks the app only through its ``Host``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dynotui.core.pager import Pager
from dynotui.dynamodb.query_form import QueryForm
from dynotui.dynamodb.schema import BASE, TableSchema
from dynotui.dynamodb.spec import QuerySpec
from dynotui.ui.actions import Action
from dynotui.ui.adapter import NewStack
from dynotui.ui.dynamodb.query import DynamoQuery
from dynotui.ui.host import Host

if TYPE_CHECKING:
    # The planner and its screen load when a plan is first asked for, not with the app.
    from dynotui.dynamodb.plan.figures import Plan
    from dynotui.report.model import TableSection
    from dynotui.ui.dynamodb.plan_run import PlanBroken, PlanMade

PLAN = Action(
    "A",
    "db('plan')",
    "Plan: every path",
    "Every path that answers this query (table, each LSI and GSI, Scan, the advisor's "
    "index) costed side by side before it is read; Enter opens one, two marked open in "
    "compare",
)
MakeQuery = Callable[[TableSchema, QueryForm, QuerySpec], DynamoQuery]


class Plans:
    def __init__(self) -> None:
        self._plans: list[Plan] = []
        self._bases: list[DynamoQuery] = []  # the query each plan was made for
        self._by_scope: dict[str, tuple[int, str | None]] = {}  # a query's plan, its path
        self.latest: Plan | None = None

    def start(
        self,
        host: Host,
        client: Any,
        query: DynamoQuery,
        pager: Pager[Any, Any, Any] | None,
        prices: Any,
        make: MakeQuery,
        answer: Callable[[NewStack[Any, Any, Any]], None],
    ) -> None:
        """The plan of ``query``: the one made before for it or for the query a path of
        which it is (with that path's row measured by ``pager``), else a new one."""
        from dynotui.ui.dynamodb.plan_rows import plan_ask
        from dynotui.ui.screens.plan import PlanScreen

        found = self._by_scope.get(query.spec.scope())
        plan, base, number = None, query, None
        if found is not None:
            number, path_name = found
            plan, base = self._plans[number], self._bases[number]
            if path_name is not None and pager is not None:
                from dynotui.dynamodb.plan.measured import with_measured

                plan = with_measured(plan, path_name, pager)
                self._plans[number] = plan
                self.latest = plan

        def finished(result: PlanMade | PlanBroken) -> None:
            from dynotui.ui.dynamodb.plan_run import PlanMade

            host.what_if_finished(result)  # billed to the session with the estimates
            if isinstance(result, PlanMade):
                self._keep(base, result.plan)

        def answered(choice: tuple[str, ...] | None) -> None:
            kept = self._by_scope.get(base.spec.scope())
            if choice is None or kept is None:
                return
            made = self._plans[kept[0]]
            if choice[0] == "open":
                opened = self._open(host, made, kept[0], base, choice[1], make)
                if opened is not None:
                    answer(opened)
            elif choice[0] == "compare":
                left = self._open(host, made, kept[0], base, choice[1], make)
                right = self._open(host, made, kept[0], base, choice[2], make)
                if left is not None and right is not None:
                    answer(left)
                    host.compare(right.query)

        ask = plan_ask(
            client,
            base,
            prices,
            finished=finished,
            copy=host.copy,
            clock=host.read_clock(),
            plan=plan,
        )
        host.ask(PlanScreen(ask), answered)

    def _keep(self, base: DynamoQuery, plan: Plan) -> None:
        self._plans.append(plan)
        self._bases.append(base)
        self._by_scope[base.spec.scope()] = (len(self._plans) - 1, None)
        self.latest = plan

    def _open(
        self,
        host: Host,
        plan: Plan,
        number: int,
        base: DynamoQuery,
        name: str,
        make: MakeQuery,
    ) -> NewStack[Any, Any, Any] | None:
        """Path ``name`` as a new stack, remembered as that plan's path."""
        planned = plan.path(name)
        path = planned.path
        if path.kind == "imagined":
            host.say(
                f"{name} does not exist: W estimates it and pages it beside the query.",
                severity="warning",
            )
            return None
        if path.kind == "export" or path.spec is None:
            host.say("An export opens with dynotui --from-export PATH.", severity="warning")
            return None
        if not planned.usable:
            host.say(f"{name} cannot serve this query: {planned.why}", severity="warning")
            return None
        form = base.form.with_(order=path.index or BASE, scan=path.spec.scan)
        query = make(path.schema, form, path.spec)
        self._by_scope[path.spec.scope()] = (number, name)
        return NewStack(
            query,
            note=f"Plan path {name}: its pages are measured as you read them; A shows the "
            "plan with its row measured.",
        )

    def report_section(self) -> TableSection | None:
        if self.latest is None:
            return None
        from dynotui.dynamodb.plan.report_section import plan_section

        return plan_section(self.latest)
