/**
 * Queue consumer. The PDF export issue adds its job kinds here; until then an unknown message is
 * acknowledged and logged so a stray message cannot block the queue.
 */
export async function handleQueue(batch: MessageBatch<unknown>, _env: Env, _ctx: ExecutionContext): Promise<void> {
  for (const message of batch.messages) {
    console.warn(`queue ${batch.queue}: no handler for message ${message.id}`);
    message.ack();
  }
}
