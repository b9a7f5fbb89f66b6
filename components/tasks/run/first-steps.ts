/**
 * How many of the newest steps the run page shows first (server-rendered with the page, app/tasks/[id]),
 * before the longer list (task.steps' default, the newest 10,000) arrives: a screenful and then some,
 * so the first view of a 50,000-step task costs what a short task's does.
 */
export const FIRST_STEPS = 200;
