package com.microsoft.playwright.impl;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.PlaywrightException;
import com.microsoft.playwright.impl.driver.Driver;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Playwright connection to a driver that many browser contexts share, made safe for sharing.
 * Playwright for Java waits for each call's answer on the one thread that uses it, so a call that
 * never ends (a script in a page whose renderer loops) would stop every context on the driver.
 * Here:
 *
 * <ul>
 *   <li>every call that Playwright sends without a deadline gets what is left until {@link
 *       #deadline(long)}, which the driver enforces itself: a wedged page's call fails and the
 *       thread goes on;
 *   <li>{@link #closeNow} closes one context from any thread, past the call that holds the thread,
 *       which then fails at once;
 *   <li>{@link #pump()} delivers the events already received, without a round trip.
 * </ul>
 *
 * <p>It lives in Playwright's package because the connection's transport and message sending are
 * package-private, and no public seam does the job: {@code Playwright.CreateOptions} sets only the
 * driver's environment, the contexts' and pages' default timeouts bound Playwright's own waits but
 * not a script's evaluation, and {@code BrowserType.connect} to a driver of our own would add a
 * process and still wait on one thread without a deadline. The parent POM pins Playwright, and
 * {@code BrowserPoolTest} fails when these internals move.
 */
public final class BoundedConnection {
  /** Ids of the messages sent by {@link #closeNow}: far above the ones Playwright counts up. */
  private static final int OUT_OF_BAND_IDS = 1 << 30;

  private final Process process;
  private final PlaywrightImpl playwright;
  private final Bounding transport;

  private BoundedConnection(Process process, PlaywrightImpl playwright, Bounding transport) {
    this.process = process;
    this.playwright = playwright;
    this.transport = transport;
  }

  /**
   * Starts a driver with {@code env} and connects to it: the one unpacked in {@code driverDir}
   * (holding {@code package/cli.js}), else one unpacked afresh, as {@code Playwright.create} with a
   * new driver instance would. Node.js loads {@code preload} ({@code --require}) before the driver,
   * when there is one. {@code env} is the driver's whole environment: unlike {@code
   * Playwright.create}'s, it inherits nothing of this JVM's (a credential among it), only
   * Playwright for Java's own {@code PW_*} variables are added.
   */
  public static BoundedConnection start(
      java.util.Optional<Path> driverDir,
      java.util.Optional<Path> preload,
      Map<String, String> env) {
    Driver driver =
        driverDir.isPresent()
            ? new Unpacked(driverDir.get(), env)
            : Driver.createAndInstall(env, true);
    ProcessBuilder builder = driver.createProcessBuilder();
    Map<String, String> inherited = builder.environment();
    Map<String, String> clean = new java.util.HashMap<>(env);
    // What Driver.createProcessBuilder set, with values of its own rather than the host's.
    for (String own : java.util.List.of("PW_LANG_NAME", "PW_LANG_NAME_VERSION")) {
      if (inherited.containsKey(own)) {
        clean.put(own, inherited.get(own));
      }
    }
    String version = Driver.class.getPackage().getImplementationVersion();
    if (version != null) {
      clean.put("PW_CLI_DISPLAY_VERSION", version);
    }
    inherited.clear();
    inherited.putAll(clean);
    // [node, cli.js]: Node.js's own options go between the two.
    preload.ifPresent(
        p -> builder.command().addAll(1, java.util.List.of("--require", p.toString())));
    builder.command().add("run-driver");
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new PlaywrightException("Failed to launch driver", e);
    }
    Bounding transport =
        new Bounding(new PipeTransport(process.getInputStream(), process.getOutputStream()));
    try {
      Connection connection = new Connection(transport, env);
      return new BoundedConnection(process, connection.initializePlaywright(), transport);
    } catch (RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  public Playwright playwright() {
    return playwright;
  }

  /** The Node.js driver's process. */
  public Process process() {
    return process;
  }

  /**
   * The deadline ({@link System#nanoTime()}) of the calls sent from now on without one of their
   * own: each gets the time left until it, at least 1 ms. Set on the connection's thread before
   * each piece of work.
   */
  public void deadline(long nanoTime) {
    transport.deadline = nanoTime;
    transport.bounded = true;
  }

  /**
   * Asks the driver to close {@code context} (a browser context, a page, a browser: any of
   * Playwright's objects with a close) now, from any thread, without waiting for it: the call
   * running on the connection's thread for it fails once it is closed. The answer is dropped when
   * it arrives.
   */
  public void closeNow(Object context, double timeoutMs) {
    JsonObject message = new JsonObject();
    int id = OUT_OF_BAND_IDS + transport.outOfBand.incrementAndGet();
    transport.unanswered.add(id);
    message.addProperty("id", id);
    message.addProperty("guid", ((ChannelOwner) context).guid);
    message.addProperty("method", "close");
    message.add("params", new JsonObject());
    JsonObject metadata = new JsonObject();
    metadata.addProperty("wallTime", System.currentTimeMillis());
    metadata.addProperty("timeout", timeoutMs);
    metadata.addProperty("internal", true);
    message.add("metadata", metadata);
    transport.send(message);
  }

  /**
   * Dispatches the messages the driver already sent (events among them) and returns; on the
   * connection's thread, between calls.
   */
  public void pump() {
    transport.pumping = true;
    try {
      for (int i = 0; i < 1_000; i++) {
        transport.received = false;
        playwright.connection.processOneMessage();
        if (!transport.received) {
          return;
        }
      }
    } finally {
      transport.pumping = false;
    }
  }

  /**
   * The protocol method of the last call sent on the connection's thread ({@code
   * evaluateExpression}, {@code goto}, ...), or empty: what a call that ran out of time was waiting
   * for.
   */
  public String lastMethod() {
    return transport.lastMethod;
  }

  /** Closes the pipe to the driver, which then exits; does not wait. */
  public void disconnect() {
    try {
      playwright.connection.close();
    } catch (IOException e) {
      // the pipe is gone already
    }
  }

  /** The transport under the connection: adds deadlines and drops out-of-band answers. */
  private static final class Bounding implements Transport {
    private final Transport pipe;
    private final Set<Integer> unanswered = ConcurrentHashMap.newKeySet();
    private final AtomicInteger outOfBand = new AtomicInteger();
    private volatile long deadline;
    private volatile boolean bounded;
    private volatile String lastMethod = "";
    private boolean pumping;
    private boolean received;

    Bounding(Transport pipe) {
      this.pipe = pipe;
    }

    @Override
    public void send(JsonObject message) {
      JsonElement metadata = message.get("metadata");
      if (bounded
          && metadata != null
          && metadata.isJsonObject()
          && !metadata.getAsJsonObject().has("timeout")) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        metadata.getAsJsonObject().addProperty("timeout", Math.max(1, left));
      }
      JsonElement method = message.get("method");
      JsonElement id = message.get("id");
      boolean outOfBand = id != null && id.isJsonPrimitive() && id.getAsInt() >= OUT_OF_BAND_IDS;
      if (method != null && method.isJsonPrimitive() && !outOfBand) {
        lastMethod = method.getAsString();
      }
      pipe.send(message);
    }

    @Override
    public JsonObject poll(Duration timeout) {
      JsonObject message = pipe.poll(pumping ? Duration.ZERO : timeout);
      if (message == null) {
        return null;
      }
      received = true;
      JsonElement id = message.get("id");
      if (id != null && id.isJsonPrimitive() && unanswered.remove(id.getAsInt())) {
        return null;
      }
      return message;
    }

    @Override
    public void close() throws IOException {
      pipe.close();
    }
  }

  /** A driver already unpacked in a directory: nothing to install. */
  private static final class Unpacked extends Driver {
    private final Path dir;

    Unpacked(Path dir, Map<String, String> env) {
      this.dir = dir;
      this.env.putAll(env);
    }

    @Override
    protected void initialize(Boolean installBrowsers) {
      // unpacked already, and browsers are never downloaded
    }

    @Override
    public Path driverDir() {
      return dir;
    }
  }
}
