package dev.periscope.browser.runtime;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserEnvironment;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserProvider;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.Observation;
import dev.periscope.api.browser.ProviderElement;
import dev.periscope.api.browser.ProviderObservation;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

/**
 * One open provider environment as the runtime holds it: its identity, its queue (a fair lock: operations run one
 * at a time, in admission order), and the refs of its newest observation. Only the newest observation's provider
 * targets are kept, so an older observation can never be acted on.
 *
 * <p>Its life: admitting, then (last release) no longer admitting while admitted work drains, then closed. An
 * abort, by a caller's cancellation or a shutdown that waited too long, stops the running operation and makes the
 * environment unusable at once.
 */
final class Environment {
  final String id = "browser-" + UUID.randomUUID();
  final BrowserSessionId sessionId;
  final BrowserProvider provider;
  final int generation;
  private final BrowserEnvironment delegate;
  private final FifoGate queue = new FifoGate();
  private volatile Runnable onAbort = () -> {};
  private volatile boolean admitting = true;
  private volatile boolean aborted;
  private volatile Refs latest;
  private int revision;
  private volatile boolean closed;
  /** Work the current operation asked to run after it, still holding the queue; set and read on its thread. */
  private Runnable followUp;
  private java.util.concurrent.Executor followUpExecutor;

  Environment(BrowserSessionId sessionId, BrowserProvider provider, BrowserEnvironment delegate, int generation) {
    this.sessionId = sessionId;
    this.provider = provider;
    this.delegate = delegate;
    this.generation = generation;
  }

  /**
   * From inside an operation: runs {@code work} on {@code executor} once the operation returned, before the next
   * operation is admitted. The caller has its result at once; the queue passes on when {@code work} is done.
   */
  void afterThisOperation(java.util.concurrent.Executor executor, Runnable work) {
    followUpExecutor = executor;
    followUp = work;
  }

  /** Passes the queue on, after the current operation's follow-up if it asked for one. */
  private void exitQueue() {
    Runnable work = followUp;
    java.util.concurrent.Executor executor = followUpExecutor;
    followUp = null;
    followUpExecutor = null;
    if (work == null || closed || aborted) {
      queue.exit();
      return;
    }
    try {
      executor.execute(() -> {
        try {
          work.run();
        } finally {
          queue.exit();
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      queue.exit();
    }
  }

  BrowserEnvironment delegate() {
    return delegate;
  }

  boolean usable() {
    return admitting && !aborted;
  }

  boolean aborted() {
    return aborted;
  }

  /**
   * Runs one operation on this environment's queue. A caller cancelled while it waits in the queue leaves without
   * running; cancelled while its operation runs, the environment is aborted.
   */
  <T> T queued(Cancellation cancellation, Supplier<T> operation) {
    if (!usable()) {
      throw closedError();
    }
    try {
      queue.enter(cancellation);
    } catch (CancellationException e) {
      throw new BrowserException(ErrorCode.BROWSER_ACTION_CANCELLED,
          "the call was cancelled while it waited for the browser; nothing was done", lastUrl(), false, null);
    }
    try {
      if (closed || aborted) {
        throw closedError();
      }
      if (cancellation.isCancelled()) {
        throw new BrowserException(ErrorCode.BROWSER_ACTION_CANCELLED,
            "the call was cancelled before the browser started on it; nothing was done", lastUrl(), false, null);
      }
      try (Cancellation.Registration aborting = cancellation.onCancel(this::abort)) {
        return operation.get();
      }
    } finally {
      exitQueue();
    }
  }

  /** Called once when the environment is aborted, so its owner stops handing it out. */
  void onAbort(Runnable callback) {
    this.onAbort = callback;
  }

  private BrowserException closedError() {
    return new BrowserException(ErrorCode.BROWSER_ENVIRONMENT_CLOSED,
        aborted ? "this browser environment was discarded; the next call opens a fresh one"
            : "the browser environment is closed", lastUrl(), aborted, null);
  }

  /** Stops the running operation and makes the environment unusable. Safe from any thread, more than once. */
  void abort() {
    if (aborted) {
      return;
    }
    aborted = true;
    admitting = false;
    onAbort.run();
    delegate.abort();
  }

  /**
   * Stops admission, waits up to {@code timeoutMs} for admitted work to drain (aborting it after that), runs
   * {@code beforeClose} (the checkpoint), then closes. Both a {@code beforeClose} failure and a close failure are
   * reported, the second suppressed in the first.
   */
  void shutdown(long timeoutMs, Runnable beforeClose) {
    admitting = false;
    boolean entered = queue.tryEnter(timeoutMs);
    RuntimeException failure = null;
    try {
      if (!entered) {
        abort();
      }
      if (closed) {
        return;
      }
      closed = true;
      if (!aborted) {
        try {
          beforeClose.run();
        } catch (RuntimeException e) {
          failure = e;
        }
      }
      latest = null;
      try {
        delegate.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    } finally {
      if (entered) {
        queue.exit();
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  Refs latest() {
    return latest;
  }

  String lastUrl() {
    Refs r = latest;
    return r == null ? null : r.observation().url();
  }

  /** Turns a provider observation into the newest observation, minting refs. Caller holds the queue. */
  Observation record(ProviderObservation p) {
    revision++;
    Map<String, ProviderElement> byRef = new LinkedHashMap<>();
    Map<String, String> groupRefs = new LinkedHashMap<>();
    Map<String, String> groupLabels = new LinkedHashMap<>();
    Map<String, List<String>> groupMembers = new LinkedHashMap<>();
    List<Observation.ObservedElement> elements = new ArrayList<>();
    int n = 0;
    for (ProviderElement e : p.elements()) {
      String ref = "e" + (++n);
      byRef.put(ref, e);
      String group = null;
      if (e.groupKey() != null) {
        group = groupRefs.computeIfAbsent(e.groupKey(), k -> "g" + (groupRefs.size() + 1));
        groupLabels.putIfAbsent(group, e.groupLabel() == null ? "" : e.groupLabel());
        groupMembers.computeIfAbsent(group, k -> new ArrayList<>()).add(ref);
      }
      elements.add(new Observation.ObservedElement(ref, e.kind(), e.role(), e.name(), e.disabled(), e.inputType(),
          e.tier(), e.pagination(), e.section(), group));
    }
    List<Observation.Group> groups = new ArrayList<>();
    groupMembers.forEach((ref, members) -> groups.add(new Observation.Group(ref, groupLabels.get(ref), members)));
    Observation o = new Observation("observation-" + UUID.randomUUID(), id, generation, "page-1", revision, p.url(),
        p.title(), p.text(), p.text().length() < p.totalTextChars(), p.totalTextChars(), elements, groups,
        p.elementsTruncated(), p.totalElements(), digest(p), p.pageEvents());
    latest = new Refs(o, Map.copyOf(byRef));
    return o;
  }

  /** The provider element behind a ref of the newest observation, or {@code BROWSER_STALE_REFERENCE}. */
  ProviderElement resolve(String observationId, String ref) {
    Refs r = latest;
    if (r == null || !r.observation().id().equals(observationId)) {
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
          "observation \"" + observationId + "\" is stale; observe the page again", lastUrl(), false, null);
    }
    ProviderElement e = r.elementsByRef().get(ref);
    if (e == null) {
      throw new BrowserException(ErrorCode.BROWSER_STALE_REFERENCE,
          "element \"" + ref + "\" is not in observation \"" + observationId + "\"; observe the page again",
          lastUrl(), false, null);
    }
    return e;
  }

  private static String digest(ProviderObservation p) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      for (String part : new String[] {p.url(), p.title(), p.text()}) {
        d.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      for (ProviderElement e : p.elements()) {
        d.update(e.fingerprint().getBytes(StandardCharsets.UTF_8));
        d.update((byte) 0);
      }
      return "sha256:" + HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
