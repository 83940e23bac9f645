package com.microsoft.playwright.impl;

import com.google.gson.JsonObject;
import com.microsoft.playwright.CDPSession;

/**
 * A DevTools command sent on a {@link CDPSession} without waiting for its answer: {@link
 * CDPSession#send} waits for one round trip through the driver to Chromium, and a screencast
 * frame's acknowledgement needs none. The answer still comes (the driver answers every message),
 * and settles a result nobody reads, failure or not. In Playwright's package for the same reason as
 * {@link BoundedConnection}: sending without waiting is package-private there.
 */
public final class Unanswered {
  private Unanswered() {}

  /** Sends {@code method} with {@code params} on {@code session}; on the thread that uses it. */
  public static void send(CDPSession session, String method, JsonObject params) {
    JsonObject message = new JsonObject();
    message.addProperty("method", method);
    message.add("params", params);
    ((ChannelOwner) session).sendMessageAsync("send", message);
  }
}
