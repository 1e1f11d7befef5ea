/**
 * How many open conversations an agent holds before auto-assignment passes them by (design.md §6
 * "Working together"): the rule the core enforces and the Team screen checks as it is typed.
 * (No zod here: the renderer imports it as a value, and the page's CSP forbids zod's eval probe.)
 */
export const CAPACITY_MAX = 1000;
export const DEFAULT_CAPACITY = 10;
