package dev.periscope.browser.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.PluginConfiguration;
import dev.periscope.api.tool.Tool;
import dev.periscope.api.tool.ToolCall;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.DefaultBrowserRuntime;
import dev.periscope.browser.runtime.FakeProvider;
import dev.periscope.browser.runtime.RuntimeSettings;
import dev.periscope.browser.runtime.SessionDirectory;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The tools' agent binding and argument checks, over the real runtime and an in-memory provider.
 */
class BrowserToolsTest {
  private final BrowserSettings settings =
      BrowserSettings.from(new PluginConfiguration(java.util.Map.of("persistence", "ephemeral")));
  private final DefaultBrowserRuntime runtime =
      DefaultBrowserRuntime.builder(RuntimeSettings.defaults()).build();
  private final FakeProvider provider = new FakeProvider("fake", true);
  private BrowserTools tools;

  @BeforeEach
  void start() {
    runtime.registerProvider(provider);
    tools =
        new BrowserTools(
            runtime,
            SessionDirectory.inMemory(),
            settings.tools(),
            Optional.empty(),
            dev.periscope.browser.runtime.CredentialChannel.none(),
            false);
  }

  @AfterEach
  void stop() {
    tools.close();
    runtime.close();
  }

  private Tool tool(String name) {
    return tools.tools().stream()
        .filter(t -> t.descriptor().name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private ToolResult call(
      String agent, String name, Map<String, Object> args, Cancellation cancellation) {
    return tool(name).call(new ToolCall(args, agent, cancellation));
  }

  private ToolResult call(String agent, String name, Map<String, Object> args) {
    return call(agent, name, args, Cancellation.none());
  }

  @SuppressWarnings("unchecked")
  private static String observationId(ToolResult r) {
    return (String) ((Map<String, Object>) r.structured().get("observation")).get("id");
  }

  @SuppressWarnings("unchecked")
  private static String environmentId(ToolResult r) {
    return (String) ((Map<String, Object>) r.structured().get("observation")).get("environment_id");
  }

  /**
   * A call that comes while browser_reset deletes the old session's checkpoint goes on in the fresh
   * browser session, never in the one the reset is discarding.
   */
  @Test
  void aCallRacingAResetGoesOnInTheFreshSession() throws Exception {
    var destroying = new java.util.concurrent.CountDownLatch(1);
    var letGo = new java.util.concurrent.CountDownLatch(1);
    FakeProvider checkpointing =
        new FakeProvider(
            "checkpointing",
            true,
            java.util.Set.of(
                dev.periscope.api.browser.spi.Capability.SCREENSHOT,
                dev.periscope.api.browser.spi.Capability.CHECKPOINT)) {
          @Override
          public void destroyCheckpoint(dev.periscope.api.browser.spi.CheckpointRef checkpoint) {
            destroying.countDown();
            try {
              letGo.await(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            super.destroyCheckpoint(checkpoint);
          }
        };
    DefaultBrowserRuntime resuming =
        DefaultBrowserRuntime.builder(RuntimeSettings.defaults()).build();
    resuming.registerProvider(checkpointing);
    BrowserTools resumingTools =
        new BrowserTools(
            resuming,
            SessionDirectory.inMemory(),
            BrowserSettings.from(new PluginConfiguration(Map.of())).tools(),
            Optional.empty(),
            dev.periscope.browser.runtime.CredentialChannel.none(),
            false);
    var pool = java.util.concurrent.Executors.newCachedThreadPool();
    try {
      java.util.function.BiFunction<String, Map<String, Object>, ToolResult> call =
          (name, args) ->
              resumingTools.tools().stream()
                  .filter(t -> t.descriptor().name().equals(name))
                  .findFirst()
                  .orElseThrow()
                  .call(new ToolCall(args, "agent", Cancellation.none()));
      assertFalse(call.apply("browser_observe", Map.of()).isError());
      String old = checkpointing.openedSessions.get(0);
      var reset = pool.submit(() -> call.apply("browser_reset", Map.of()));
      assertTrue(destroying.await(10, java.util.concurrent.TimeUnit.SECONDS), "no checkpoint");
      // The reset is deleting the old session's checkpoint: a call comes.
      var racing = pool.submit(() -> call.apply("browser_observe", Map.of()));
      ToolResult after = racing.get(10, java.util.concurrent.TimeUnit.SECONDS);
      letGo.countDown();
      ToolResult done = reset.get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertFalse(after.isError(), after.text());
      assertEquals(old, done.structured().get("discarded_session"));
      assertEquals(
          List.of(old, done.structured().get("session")),
          checkpointing.openedSessions,
          "the sessions opened");
    } finally {
      letGo.countDown();
      pool.shutdownNow();
      resumingTools.close();
      resuming.close();
    }
  }

  @Test
  void aFailureCarriesTheFailureLineAndTheSameFailureAsData() {
    ToolResult o = call("agent", "browser_observe", Map.of());
    ToolResult stale =
        call(
            "agent",
            "browser_click",
            Map.of("observation_id", "observation-gone", "element_ref", "e1"));
    assertTrue(stale.isError());
    @SuppressWarnings("unchecked")
    Map<String, Object> error = (Map<String, Object>) stale.structured().get("error");
    assertEquals(
        java.util.List.of(
            "code", "message", "url", "observation", "lease", "recommended_action", "retryable"),
        java.util.List.copyOf(error.keySet()));
    assertEquals("BROWSER_STALE_REFERENCE", error.get("code"));
    String line =
        "code="
            + error.get("code")
            + (error.get("url") == null ? "" : " url=" + error.get("url"))
            + " observation="
            + error.get("observation")
            + " lease="
            + error.get("lease")
            + (error.get("recommended_action") == null
                ? ""
                : " recommended_action=" + error.get("recommended_action"))
            + " retryable="
            + error.get("retryable");
    assertEquals(error.get("message") + "\n" + line, stale.text());
    assertFalse(o.isError());
  }

  @Test
  void givesEachAgentSessionItsOwnEnvironmentAndRefusesTheOthersRefs() {
    ToolResult a = call("agent-a", "browser_observe", Map.of());
    ToolResult b = call("agent-b", "browser_observe", Map.of());
    assertNotEquals(environmentId(a), environmentId(b));
    ToolResult crossed =
        call(
            "agent-b",
            "browser_click",
            Map.of("observation_id", observationId(a), "element_ref", "e1"));
    assertTrue(crossed.isError());
    assertTrue(crossed.text().contains("code=BROWSER_STALE_REFERENCE"), crossed.text());
    assertEquals(environmentId(a), environmentId(call("agent-a", "browser_observe", Map.of())));
  }

  @Test
  void aCallCancelledMidActionRebuildsTheLeaseAndTheNextCallGetsAFreshEnvironment()
      throws Exception {
    ToolResult first = call("agent", "browser_observe", Map.of());
    provider.clickGate = new CountDownLatch(1);
    Cancellation cancel = Cancellation.none();
    ToolResult[] clicked = new ToolResult[1];
    Thread clicker =
        new Thread(
            () ->
                clicked[0] =
                    call(
                        "agent",
                        "browser_click",
                        Map.of("observation_id", observationId(first), "element_ref", "e1"),
                        cancel));
    clicker.start();
    provider.environments.get(0).clickStarted.await(10, TimeUnit.SECONDS);
    cancel.cancel();
    clicker.join(10_000);
    assertTrue(clicked[0].isError());
    assertTrue(
        clicked[0]
            .text()
            .endsWith(
                "code=BROWSER_ACTION_CANCELLED url=about:blank observation=invalid lease=rebuilt"
                    + " recommended_action=browser_observe retryable=false"),
        clicked[0].text());
    assertTrue(provider.environments.get(0).closed, "the discarded environment was not released");
    ToolResult next = call("agent", "browser_observe", Map.of());
    assertFalse(next.isError(), next.text());
    assertNotEquals(environmentId(first), environmentId(next));
  }

  @Test
  void aCallCancelledBeforeItReachesTheBrowserDoesNothing() {
    Cancellation cancelled = Cancellation.none();
    cancelled.cancel();
    ToolResult r = call("agent", "browser_open", Map.of("url", "http://127.0.0.1/"), cancelled);
    assertTrue(r.isError());
    assertTrue(r.text().contains("code=BROWSER_ACTION_CANCELLED"), r.text());
    assertTrue(r.text().contains("lease=intact"), r.text());
    assertTrue(provider.environments.isEmpty());
  }

  @Test
  void endingAnAgentSessionReleasesOnlyItsEnvironment() {
    call("agent-a", "browser_observe", Map.of());
    call("agent-b", "browser_observe", Map.of());
    tools.agentSessionEnded("agent-a");
    assertTrue(provider.environments.get(0).closed);
    assertFalse(provider.environments.get(1).closed);
  }

  @Test
  void checksEveryBudgetAgainstItsBoundsEvenWithoutTheHostsSchema() {
    for (Map<String, Object> args :
        java.util.List.<Map<String, Object>>of(
            Map.of("max_text_chars", 0),
            Map.of("max_text_chars", 60_001),
            Map.of("max_elements", 101),
            Map.of("max_elements", 2.5),
            Map.of("max_elements", "ten"))) {
      ToolResult r = call("agent", "browser_observe", args);
      assertTrue(r.isError(), args.toString());
      assertTrue(r.text().contains("code=BROWSER_INVALID_ARGUMENT"), r.text());
      assertTrue(r.text().contains("an integer from 1 to"), r.text());
    }
    assertTrue(provider.environments.isEmpty(), "work started before the arguments were checked");
    ToolResult small =
        call("agent", "browser_observe", Map.of("max_text_chars", 4, "max_elements", 1));
    @SuppressWarnings("unchecked")
    var observation = (Map<String, Object>) small.structured().get("observation");
    assertEquals("text", observation.get("text"));
    assertEquals(1, ((java.util.List<?>) observation.get("elements")).size());
    var schema =
        com.google.gson.JsonParser.parseString(tool("browser_observe").descriptor().inputSchema())
            .getAsJsonObject();
    assertEquals(
        12000,
        schema
            .getAsJsonObject("properties")
            .getAsJsonObject("max_text_chars")
            .get("maximum")
            .getAsInt());
  }

  @Test
  void refusesAConfigurationValueOutsideItsBoundsNamingIt() {
    Executable bad =
        () -> BrowserSettings.from(new PluginConfiguration(Map.of("cleanupTimeoutMs", 5)));
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.periscope.api.ConfigurationException.class, bad);
    assertEquals("plugins.browser.cleanupTimeoutMs", e.path());
    assertEquals(
        "plugins.browser.cleanupTimeoutMs must be an integer from 100 to 120000 (found 5)",
        e.getMessage());
  }

  @Test
  void everyPropertyOfEveryToolSchemaSaysItsType() {
    java.util.List<String> untyped = new java.util.ArrayList<>();
    for (Tool t : tools.tools()) {
      com.google.gson.JsonObject schema =
          com.google.gson.JsonParser.parseString(t.descriptor().inputSchema()).getAsJsonObject();
      untypedIn(t.descriptor().name(), schema, untyped);
    }
    assertEquals(java.util.List.of(), untyped, "properties a converter would guess the kind of");
  }

  /** Every schema under {@code schema} without a type, or a bare {}, by its path. */
  private static void untypedIn(
      String path, com.google.gson.JsonObject schema, java.util.List<String> untyped) {
    if (!schema.has("type") || schema.entrySet().isEmpty()) {
      untyped.add(path);
    }
    if (schema.has("properties")) {
      schema
          .getAsJsonObject("properties")
          .entrySet()
          .forEach(
              p -> untypedIn(path + "." + p.getKey(), p.getValue().getAsJsonObject(), untyped));
    }
    if (schema.has("items")) {
      untypedIn(path + "[]", schema.getAsJsonObject("items"), untyped);
    }
  }

  @Test
  void passwordsTheModelTypesAreRefusedUnlessTheProjectSaysAllow() {
    assertFalse(
        BrowserSettings.from(new PluginConfiguration(Map.of()))
            .credentials()
            .modelTypedPasswords());
    assertTrue(
        BrowserSettings.from(
                new PluginConfiguration(
                    Map.of("credentials", Map.of("modelTypedPasswords", "allow"))))
            .credentials()
            .modelTypedPasswords());
    for (Object bad : java.util.List.of("yes", "ALLOW", true)) {
      var e =
          org.junit.jupiter.api.Assertions.assertThrows(
              dev.periscope.api.ConfigurationException.class,
              () ->
                  BrowserSettings.from(
                      new PluginConfiguration(
                          Map.of("credentials", Map.of("modelTypedPasswords", bad)))),
              bad::toString);
      assertEquals("plugins.browser.credentials.modelTypedPasswords", e.path());
      assertTrue(
          e.getMessage().contains("must be allow or refuse (found " + bad + ")"), e.getMessage());
    }
  }

  @Test
  void theHandoffsLiveViewListensOnOneAddressNeverEveryInterface() {
    for (Map<String, Object> handoff :
        java.util.List.<Map<String, Object>>of(
            Map.of("address", "0.0.0.0"),
            Map.of("address", "::"),
            Map.of("address", "10.0.0.1; rm"),
            Map.of("port", 70_000))) {
      var e =
          org.junit.jupiter.api.Assertions.assertThrows(
              dev.periscope.api.ConfigurationException.class,
              () -> BrowserSettings.from(new PluginConfiguration(Map.of("handoff", handoff))),
              handoff::toString);
      assertTrue(e.path().startsWith("plugins.browser.handoff."), e.path());
    }
    assertEquals(
        new dev.periscope.browser.handoff.LiveViewServer.Settings("127.0.0.1", 0),
        BrowserSettings.from(new PluginConfiguration(Map.of())).handoff());
  }

  @Test
  void reportsFillsByLengthOnly() {
    ToolResult o = call("agent", "browser_observe", Map.of());
    ToolResult filled =
        call(
            "agent",
            "browser_fill",
            Map.of("observation_id", observationId(o), "element_ref", "e1", "value", "secret-ish"));
    assertTrue(filled.text().startsWith("Filled 10 characters"), filled.text());
    assertFalse(filled.toString().contains("secret-ish"), filled.toString());
  }

  @Test
  void aSecondCallWaitingForTheSameSessionsLeaseCanBeCancelledAlone() throws Exception {
    provider.openGate = new CountDownLatch(1);
    ToolResult[] results = new ToolResult[2];
    Thread first = new Thread(() -> results[0] = call("agent", "browser_observe", Map.of()));
    first.start();
    while (provider.opens.get() == 0) {
      Thread.onSpinWait();
    }
    Cancellation second = Cancellation.none();
    Thread waiting =
        new Thread(() -> results[1] = call("agent", "browser_observe", Map.of(), second));
    waiting.start();
    while (waiting.getState() != Thread.State.TIMED_WAITING) {
      Thread.onSpinWait();
    }
    second.cancel();
    waiting.join(10_000);
    assertFalse(waiting.isAlive(), "the cancelled call kept waiting");
    assertTrue(results[1].text().contains("code=BROWSER_ACTION_CANCELLED"), results[1].text());
    assertTrue(first.isAlive(), "the first call should still be waiting for its browser");
    provider.openGate.countDown();
    first.join(10_000);
    assertFalse(results[0].isError(), results[0].text());
    assertEquals(1, provider.opens.get());
  }

  @Test
  void endingAnAgentSessionStopsItsUnfinishedAcquisition() throws Exception {
    provider.openGate = new CountDownLatch(1);
    ToolResult[] result = new ToolResult[1];
    Thread call = new Thread(() -> result[0] = call("agent", "browser_observe", Map.of()));
    call.start();
    while (provider.opens.get() == 0) {
      Thread.onSpinWait();
    }
    tools.agentSessionEnded("agent");
    call.join(10_000);
    assertFalse(call.isAlive(), "the call kept waiting for a browser its session no longer wants");
    assertTrue(result[0].text().contains("code=BROWSER_ACTION_CANCELLED"), result[0].text());
    provider.openGate.countDown();
    while (provider.environments.isEmpty() || !provider.environments.get(0).closed) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aCallThatFindsItsBrowserWedgedBeforeItStartsRunsOnAFreshOneAndSaysWhy() throws Exception {
    // Liveness checks only before a call that follows a pause of 100 ms, each with 200 ms to
    // answer.
    DefaultBrowserRuntime quick =
        DefaultBrowserRuntime.builder(
                RuntimeSettings.defaults()
                    .with(
                        new RuntimeSettings.Timeouts(1_000, 1_000, 100, 200, 600_000, 100, 5_000)))
            .build();
    FakeProvider fake = new FakeProvider("fake", true);
    quick.registerProvider(fake);
    BrowserTools mine =
        new BrowserTools(
            quick,
            SessionDirectory.inMemory(),
            settings.tools(),
            Optional.empty(),
            dev.periscope.browser.runtime.CredentialChannel.none(),
            false);
    try {
      Tool open =
          mine.tools().stream()
              .filter(t -> t.descriptor().name().equals("browser_open"))
              .findFirst()
              .orElseThrow();
      ToolResult first =
          open.call(
              new ToolCall(Map.of("url", "https://example.test/a"), "agent", Cancellation.none()));
      Thread.sleep(150);
      fake.environments.get(0).probeGate = new CountDownLatch(1); // the page stops answering
      ToolResult second =
          open.call(
              new ToolCall(Map.of("url", "https://example.test/b"), "agent", Cancellation.none()));
      assertFalse(second.isError(), second.text());
      assertNotEquals(environmentId(first), environmentId(second));
      assertTrue(second.text().contains("the browser was replaced by a fresh one"), second.text());
      assertTrue(
          second.text().contains("did not answer a liveness check within 200 ms"), second.text());
      assertEquals(
          java.util.List.of("navigate https://example.test/a"),
          fake.environments.get(0).actions,
          "the call reached the wedged browser");
    } finally {
      mine.close();
      quick.close();
    }
  }

  @Test
  void anObservationThatFindsItsBrowserDeadRunsOnAFreshOneButAClickDoesNot() throws Exception {
    ToolResult first = call("agent", "browser_open", Map.of("url", "https://example.test/a"));
    FakeProvider.FakeEnvironment dying = provider.environments.get(0);
    dying.onNextObserve =
        () -> {
          dying.die(
              dev.periscope.api.browser.spi.EnvironmentFault.Cause.BROWSER_EXITED,
              "Chromium exited");
          throw new IllegalStateException("Target page, context or browser has been closed");
        };
    ToolResult observed = call("agent", "browser_observe", Map.of());
    assertFalse(observed.isError(), observed.text());
    assertNotEquals(environmentId(first), environmentId(observed));
    assertTrue(
        observed.text().contains("the browser was replaced by a fresh one"), observed.text());
    assertTrue(observed.text().contains("Chromium exited"), observed.text());
    ToolResult opened = call("agent", "browser_open", Map.of("url", "https://example.test/b"));

    FakeProvider.FakeEnvironment second = provider.environments.get(1);
    provider.clickGate = new CountDownLatch(1);
    Thread crashAgain =
        new Thread(
            () -> {
              try {
                second.clickStarted.await();
              } catch (InterruptedException e) {
                return;
              }
              second.die(
                  dev.periscope.api.browser.spi.EnvironmentFault.Cause.PAGE_CRASHED,
                  "the page's renderer crashed");
            });
    crashAgain.start();
    ToolResult click =
        call(
            "agent",
            "browser_click",
            Map.of("observation_id", observationId(opened), "element_ref", "e1"));
    assertTrue(click.isError(), click.text());
    assertTrue(
        click
            .text()
            .endsWith(
                "code=BROWSER_CRASHED url=https://example.test/b observation=invalid"
                    + " lease=rebuilt recommended_action=browser_open retryable=false"),
        click.text());
    assertEquals(2, provider.environments.size(), "a click was run again on another browser");
  }

  @Test
  @SuppressWarnings("unchecked")
  void pageTextIsFencedWithTheSessionsNonceWhichAResetRenews() {
    ToolResult first = call("agent", "browser_open", Map.of("url", "https://example.test/a"));
    Map<String, Object> flag = (Map<String, Object>) first.structured().get("page_content");
    assertEquals(true, flag.get("fenced"));
    String nonce = (String) flag.get("nonce");
    PageFence fence = new PageFence(nonce);
    assertTrue(
        first.text().contains(fence.open() + "\nURL: https://example.test/a\n"), first.text());
    // Another agent's browser session has a nonce of its own; a reset makes a new one.
    ToolResult other = call("other", "browser_observe", Map.of());
    assertNotEquals(
        nonce, ((Map<String, Object>) other.structured().get("page_content")).get("nonce"));
    call("agent", "browser_reset", Map.of());
    ToolResult after = call("agent", "browser_open", Map.of("url", "https://example.test/a"));
    assertNotEquals(
        nonce, ((Map<String, Object>) after.structured().get("page_content")).get("nonce"));
  }
}
