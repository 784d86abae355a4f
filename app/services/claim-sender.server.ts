/**
 * Sending an 837P (decision 032): one small interface, so a clearinghouse client (SFTP or an HTTP API) can be
 * added later without touching the claims model. The local default sends nothing over the network: the file is
 * already stored in x12_files, and sending records who sent it and when (x12_files.sender = "local", sent_at).
 */
export interface ClaimFileToSend {
  fileId: number;
  fileName: string;
  content: string;
  /**
   * The same for every attempt to send this file: its interchange control number (ISA13), which no other file has.
   * A clearinghouse client passes it as its idempotency key, so a file delivered by an attempt that then failed to
   * answer (a timeout after delivery) is dropped when it is sent again (decision 032).
   */
  idempotencyKey: string;
}

export interface ClaimSender {
  /** Stored in x12_files.sender. */
  name: string;
  send(file: ClaimFileToSend): Promise<{ ok: true } | { ok: false; message: string }>;
}

export const localClaimSender: ClaimSender = {
  name: "local",
  async send(file) {
    if (!file.content.startsWith("ISA")) return { ok: false, message: "the stored file is not an X12 interchange." };
    return { ok: true };
  },
};
