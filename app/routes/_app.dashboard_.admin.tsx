/** dashboard/admin (platform §2 routes): the dashboard itself, with its guard, counts and year chart. */
export { default, handle, loader, meta } from "./_app.dashboard";
