/** A screen whose data arrives with a later issue. The route's guard already applies. */
export function ComingSoon({ title, arrivesWith }: { title: string; arrivesWith: string }) {
  return (
    <section className="card">
      <h1>{title}</h1>
      <p>This screen is not available yet. It arrives with {arrivesWith}.</p>
      <a href="/dashboard">Back to the dashboard</a>
    </section>
  );
}
