package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.browser.BrowserException;
import dev.periscope.api.browser.BrowserLease;
import dev.periscope.api.browser.BrowserSessionId;
import dev.periscope.api.browser.ErrorCode;
import dev.periscope.api.browser.ObservationBudget;
import dev.periscope.api.browser.Persistence;
import dev.periscope.api.browser.Requirements;
import dev.periscope.api.browser.TransitionRecord;
import dev.periscope.api.browser.spi.Capability;
import dev.periscope.api.browser.spi.CheckpointRef;
import dev.periscope.browser.store.RuntimeDatabase;
import dev.periscope.browser.store.SqliteCheckpointIndex;
import dev.periscope.browser.store.SqliteTransitionLog;
import dev.periscope.storage.SqliteStorageDomains;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime on a real SQLite file: checkpoints and the transitions index, with each of their
 * failure paths.
 */
class DurableCheckpointsTest {
  private static final ObservationBudget BUDGET = new ObservationBudget(1000, 10);
  private static final BrowserSessionId SESSION = new BrowserSessionId("session-durable");

  @TempDir Path dir;
  private SqliteStorageDomains storage;
  private RuntimeDatabase database;
  private SqliteCheckpointIndex index;
  private DefaultBrowserRuntime runtime;
  private FakeProvider provider;

  @BeforeEach
  void start() {
    storage = new SqliteStorageDomains(dir);
    open(RuntimeSettings.defaults());
  }

  /** The credentials the runtime resolves: none, unless a test says. */
  private CredentialChannel credentials = CredentialChannel.none();

  private void open(RuntimeSettings settings) {
    database = new RuntimeDatabase(storage);
    index = new SqliteCheckpointIndex(database);
    runtime =
        DefaultBrowserRuntime.builder(settings)
            .checkpoints(index)
            .transitionLog(new SqliteTransitionLog(database))
            .credentials(credentials)
            .build();
    provider = new FakeProvider("fake", true, Set.of(Capability.SCREENSHOT, Capability.CHECKPOINT));
    runtime.registerProvider(provider);
  }

  /** A restart: the runtime and database closed, then opened again on the same file. */
  private void restart() {
    runtime.close();
    database.close();
    open(RuntimeSettings.defaults());
  }

  @AfterEach
  void stop() {
    runtime.close();
    database.close();
    storage.close();
  }

  /** Runs SQL on a domain's file outside any plugin, as an operator (or an attacker) would. */
  private void sql(String domain, String sql) throws java.sql.SQLException {
    try (java.sql.Connection c =
            java.sql.DriverManager.getConnection("jdbc:sqlite:" + file(domain));
        java.sql.Statement s = c.createStatement()) {
      s.executeUpdate(sql);
    }
  }

  private Path file(String domain) {
    return dir.resolve(domain + ".sqlite");
  }

  private BrowserLease resume(BrowserSessionId session) {
    return runtime.acquire(
        new Object(), session, Persistence.RESUME, Requirements.any(), Cancellation.none());
  }

  @Test
  void aCheckpointSurvivesARestartAndTheNextGenerationRestoresIt() {
    BrowserLease first = resume(SESSION);
    first.navigate("https://example.test/", BUDGET, Cancellation.none());
    first.close();
    restart();
    BrowserLease second = resume(SESSION);
    assertEquals(
        List.of("checkpoint-0"), provider.restoredFrom.stream().map(CheckpointRef::ref).toList());
    assertEquals(2, second.observe(BUDGET, Cancellation.none()).generation());
    second.close();
  }

  @Test
  void aCompletedActionIsCheckpointedWithinTwoSecondsWhileTheLeaseIsHeld() throws Exception {
    BrowserLease lease = resume(SESSION);
    lease.navigate("https://example.test/logged-in", BUDGET, Cancellation.none());
    long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (index.find(SESSION).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(index.find(SESSION).isPresent(), "no checkpoint within 2 s of the action");
    lease.close();
  }

  @Test
  void theCheckpointAfterAnActionGoesBeforeANextActionThatHangs() throws Exception {
    BrowserLease lease = resume(SESSION);
    var o = lease.observe(BUDGET, Cancellation.none());
    provider.clickGate = new java.util.concurrent.CountDownLatch(1);
    // The login completes, and the very next action (already waiting) hangs: the checkpoint must
    // not wait for it.
    Thread next =
        new Thread(
            () -> {
              try {
                lease.click(o.id(), "e1", BUDGET, Cancellation.none());
              } catch (RuntimeException ignored) {
                // released below
              }
            });
    lease.navigate("https://example.test/logged-in", BUDGET, Cancellation.none());
    next.start();
    provider.environments.get(0).clickStarted.await(10, java.util.concurrent.TimeUnit.SECONDS);
    assertTrue(index.find(SESSION).isPresent(), "the checkpoint waited behind the hanging action");
    provider.clickGate.countDown();
    next.join(10_000);
    lease.close();
  }

  @Test
  void aMetadataWriteFailureDeletesTheNewPayloadAndFailsCheckpointMetadataFailed()
      throws Exception {
    sql(
        RuntimeDatabase.DOMAIN,
        "CREATE TRIGGER refuse BEFORE INSERT ON checkpoints"
            + " BEGIN SELECT RAISE(ABORT, 'the disk refuses'); END");
    BrowserLease lease = resume(SESSION);
    lease.observe(BUDGET, Cancellation.none());
    var failure = assertThrows(BrowserException.class, lease::close);
    assertEquals(ErrorCode.BROWSER_CHECKPOINT_METADATA_FAILED, failure.code());
    assertTrue(failure.getMessage().contains("the disk refuses"), failure.getMessage());
    assertEquals(
        List.of("checkpoint-0"), provider.destroyed, "the unrecorded payload was left behind");
    assertTrue(index.find(SESSION).isEmpty());
  }

  @Test
  void aMissingPayloadDropsTheEntryAndOpensAFreshEnvironment() {
    resume(SESSION).close();
    assertTrue(index.find(SESSION).isPresent());
    provider.payloadMissing = true;
    BrowserLease fresh = resume(SESSION);
    assertEquals(List.of(), provider.restoredFrom);
    assertEquals(2, provider.opens.get());
    fresh.close();
    assertEquals("checkpoint-1", index.find(SESSION).orElseThrow().checkpoint().ref());
  }

  /** Credential "bank" from an environment variable that holds {@code value} (null: unset). */
  private static CredentialChannel bank(String value) {
    java.util.Map<String, String> variables = new java.util.HashMap<>();
    if (value != null) {
      variables.put("BANK_VAR", value);
    }
    return new CredentialChannel(
        java.util.Optional.empty(),
        java.util.Map.of("bank", "BANK_VAR"),
        variables::get,
        true,
        java.util.Optional.of((request, c) -> dev.periscope.api.host.ApprovalDecision.ALLOW_ONCE),
        false);
  }

  /**
   * In a session on the durable file, credential "bank" goes into a field on example.test, then the
   * page keeps it in its stored data (the fake's state is its URL), and the session is saved.
   */
  private void fillAndSave() {
    BrowserLease lease = resume(SESSION);
    lease.navigate("https://example.test/login", BUDGET, Cancellation.none());
    var o = lease.observe(BUDGET, Cancellation.none());
    lease.act(
        new dev.periscope.api.browser.BrowserAction.FillCredential(o.id(), "e3", "bank"),
        BUDGET,
        Cancellation.none());
    lease.navigate("https://example.test/?kept=hunter2-canary", BUDGET, Cancellation.none());
    lease.close();
  }

  @Test
  void aSecretThatWentIntoThePagesBeforeARestartIsRedactedAndGuardedFromTheRestoredBrowsersStart() {
    credentials = bank("hunter2-canary");
    restart();
    fillAndSave();
    assertEquals(
        List.of(new CheckpointIndex.FilledSecret("bank", List.of("https://example.test"))),
        index.find(SESSION).orElseThrow().secrets(),
        "the checkpoint names the secret, not its value");
    restart();
    BrowserLease second = resume(SESSION);
    // The restored page shows what it kept (the fake restores no URL: it goes there).
    second.navigate("https://example.test/?kept=hunter2-canary", BUDGET, Cancellation.none());
    var restored = second.observe(BUDGET, Cancellation.none());
    assertFalse(restored.text().contains("hunter2-canary"), restored.text());
    assertTrue(restored.text().contains("[REDACTED:bank]"), restored.text());
    var guard = provider.environments.get(0).egressGuard;
    assertTrue(guard != null, "the restored browser is guarded before any fill");
    assertTrue(provider.environments.get(0).reopened, "its saved pages reopened");
    assertTrue(
        provider.environments.get(0).guardedWhenReopened,
        "guarded before its saved pages reopened and ran");
    assertTrue(
        guard
            .refusal("https://elsewhere.test/?p=hunter2-canary", java.util.Map.of(), null)
            .isPresent(),
        "the secret goes nowhere else");
    assertFalse(
        guard
            .refusal("https://example.test/?p=hunter2-canary", java.util.Map.of(), null)
            .isPresent(),
        "its own origin still gets it");
    second.close();
    assertEquals(
        List.of(new CheckpointIndex.FilledSecret("bank", List.of("https://example.test"))),
        index.find(SESSION).orElseThrow().secrets(),
        "a later checkpoint keeps naming it");
  }

  /** The lines of the session's {@code egress} journal events. */
  private List<String> egressJournal() {
    return runtime.transitions(SESSION).stream()
        .filter(t -> "egress".equals(t.actionKind()))
        .map(t -> String.valueOf(t.cause()))
        .toList();
  }

  @Test
  void aSecretThatCannotBeTakenUpAgainAfterARestartIsJournaledAsUnguarded() throws Exception {
    credentials = bank("hunter2-canary");
    restart();
    fillAndSave();
    // A password the model typed, never stored, named by an earlier checkpoint as well.
    CheckpointIndex.Entry saved = index.find(SESSION).orElseThrow();
    List<CheckpointIndex.FilledSecret> both = new java.util.ArrayList<>(saved.secrets());
    both.add(
        new CheckpointIndex.FilledSecret(
            Redactions.TYPED_PASSWORD, List.of("https://example.test")));
    index.put(
        new CheckpointIndex.Entry(
            SESSION, saved.checkpoint(), saved.generation(), saved.createdAt(), both));
    credentials = bank(null);
    restart();
    BrowserLease second = resume(SESSION);
    second.observe(BUDGET, Cancellation.none());
    assertEquals(null, provider.environments.get(0).egressGuard, "nothing to guard with");
    second.close();
    List<String> egress = egressJournal();
    assertEquals(2, egress.size(), egress.toString());
    assertTrue(
        egress.stream()
            .anyMatch(l -> l.contains("credential \"bank\"") && l.contains("not guarded")),
        egress.toString());
    assertTrue(
        egress.stream()
            .anyMatch(l -> l.contains("a password the model typed") && l.contains("not guarded")),
        egress.toString());
    assertFalse(egress.toString().contains("hunter2-canary"));
    assertEquals(
        both, index.find(SESSION).orElseThrow().secrets(), "still named: the data may hold them");
  }

  @Test
  void aCredentialServiceThatFailsAsARestoredSecretIsTakenUpLeavesTheRestoreGoingAndSaysSo() {
    credentials = bank("hunter2-canary");
    restart();
    fillAndSave();
    credentials =
        new CredentialChannel(
            java.util.Optional.of(
                new dev.periscope.api.host.CredentialService() {
                  @Override
                  public Set<String> references() {
                    return Set.of("bank");
                  }

                  @Override
                  public java.util.Optional<dev.periscope.api.host.Secret> resolve(String ref) {
                    throw new IllegalStateException("the store's key hunter2-canary is unreadable");
                  }
                }),
            java.util.Map.of(),
            variable -> null,
            true,
            java.util.Optional.of(
                (request, c) -> dev.periscope.api.host.ApprovalDecision.ALLOW_ONCE),
            false);
    restart();
    BrowserLease second = resume(SESSION);
    second.observe(BUDGET, Cancellation.none());
    second.close();
    List<String> egress = egressJournal();
    assertEquals(1, egress.size(), egress.toString());
    assertTrue(
        egress.get(0).contains("the credential service failed: IllegalStateException"),
        egress.toString());
    assertFalse(egress.toString().contains("hunter2-canary"), "only the failure's kind");
    assertEquals(1, provider.environments.size(), "one browser, not one per try");
  }

  @Test
  void aPayloadOfAnotherBuildIsRefused() {
    index.put(
        new CheckpointIndex.Entry(
            SESSION, new CheckpointRef("fake", "fake-0", "checkpoint-old"), 3, Instant.now()));
    var failure = assertThrows(BrowserException.class, () -> resume(SESSION));
    assertEquals(ErrorCode.BROWSER_CHECKPOINT_VERSION_MISMATCH, failure.code());
    assertTrue(failure.getMessage().contains("fake-0") && failure.getMessage().contains("fake-1"));
    assertEquals(0, provider.opens.get());
  }

  @Test
  void replacingAnotherProvidersCheckpointIsRefusedBeforeAPayloadIsWritten() {
    BrowserLease lease = resume(SESSION);
    index.put(
        new CheckpointIndex.Entry(
            SESSION, new CheckpointRef("other", "other-1", "theirs"), 1, Instant.now()));
    var failure = assertThrows(BrowserException.class, lease::close);
    assertEquals(ErrorCode.BROWSER_CHECKPOINT_PROVIDER_MISMATCH, failure.code());
    assertEquals(0, provider.checkpointsWritten.get());
    assertEquals("theirs", index.find(SESSION).orElseThrow().checkpoint().ref());
  }

  @Test
  void retentionDropsExpiredAndOldestRecordsButNeverALiveSessions() {
    runtime.close();
    database.close();
    open(RuntimeSettings.defaults().withLimits(10_000, 100).withRetention(Duration.ofHours(1), 2));
    BrowserSessionId live = new BrowserSessionId("session-live");
    BrowserLease held = resume(live);
    index.put(
        new CheckpointIndex.Entry(
            live,
            new CheckpointRef("fake", "fake-1", "live-old"),
            1,
            Instant.now().minus(Duration.ofDays(3))));
    for (int i = 0; i < 3; i++) {
      index.put(
          new CheckpointIndex.Entry(
              new BrowserSessionId("session-" + i),
              new CheckpointRef("fake", "fake-1", "kept-" + i),
              1,
              Instant.now().minusSeconds(100 - i)));
    }
    resume(new BrowserSessionId("session-new")).close();
    // Two allowed: the live session (expired, but live) and the newest; the others went, payloads
    // first noted.
    List<String> left = index.entries().stream().map(e -> e.sessionId().value()).sorted().toList();
    assertEquals(List.of("session-live", "session-new"), left);
    assertTrue(
        provider.destroyed.containsAll(List.of("kept-0", "kept-1", "kept-2")),
        provider.destroyed.toString());
    held.close();
  }

  @Test
  void startingARuntimeAndRegisteringAProviderDeletesNoCheckpointNotEvenAnExpiredOne() {
    index.put(
        new CheckpointIndex.Entry(
            new BrowserSessionId("session-expired"),
            new CheckpointRef("fake", "fake-1", "expired"),
            1,
            Instant.now().minus(Duration.ofDays(3))));
    runtime.close();
    database.close();
    open(RuntimeSettings.defaults().withRetention(Duration.ofHours(1), 1));
    assertEquals(
        List.of("session-expired"),
        index.entries().stream().map(e -> e.sessionId().value()).toList());
    assertTrue(provider.destroyed.isEmpty(), provider.destroyed.toString());
  }

  @Test
  void theTransitionsIndexKeepsCompactRecordsAndAWriteFailureOnlyWarns() throws Exception {
    BrowserLease lease = resume(SESSION);
    lease.navigate("https://example.test/one", BUDGET, Cancellation.none());
    sql(
        RuntimeDatabase.DOMAIN,
        "CREATE TRIGGER refuse BEFORE INSERT ON transitions"
            + " BEGIN SELECT RAISE(ABORT, 'index full'); END");
    var second = lease.navigate("https://example.test/two", BUDGET, Cancellation.none());
    assertEquals(dev.periscope.api.browser.Transition.Outcome.SUCCEEDED, second.outcome());
    List<TransitionRecord> trail = runtime.transitions(SESSION);
    assertEquals(2, trail.size(), "the in-memory record of the unindexed transition is merged in");
    assertEquals("navigate", trail.get(0).actionKind());
    assertEquals("https://example.test/one", trail.get(0).after().url());
    assertEquals("https://example.test/one", trail.get(1).before().url());
    lease.close();
    restart();
    List<TransitionRecord> durable = runtime.transitions(SESSION);
    assertEquals(1, durable.size(), "only the indexed record survives the restart");
    assertFalse(durable.get(0).toString().contains("Fake page text"));
  }

  @Test
  void aDatabaseOfANewerSchemaFailsClosedAndIsLeftUnchanged() throws Exception {
    runtime.close();
    database.close();
    sql(RuntimeDatabase.DOMAIN, "PRAGMA user_version = 99");
    byte[] before = java.nio.file.Files.readAllBytes(file(RuntimeDatabase.DOMAIN));
    var failure = assertThrows(IllegalStateException.class, () -> new RuntimeDatabase(storage));
    assertTrue(
        failure.getMessage().contains("schema version 99 is newer than the newest"),
        failure.getMessage());
    assertTrue(
        java.util.Arrays.equals(
            before, java.nio.file.Files.readAllBytes(file(RuntimeDatabase.DOMAIN))));
  }
}
