package dev.periscope.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.Cancellation;
import dev.periscope.api.tool.ToolResult;
import dev.periscope.harness.InstalledProfiles;
import dev.periscope.harness.TestProjects;
import dev.periscope.harness.profile.HarnessHome;
import dev.periscope.harness.profile.PluginInstaller;
import dev.periscope.verify.TestPackage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second plugin, built by this test as a real package, contributes a browser provider through the
 * extension point; the host loads both with PF4J, the project selects the contributed provider by
 * configuration, and stopping that plugin closes the environments it opened. The provider is handed
 * the project's policy when it opens an environment, and one that does not enforce the network
 * policy is refused unless the project's mode is unrestricted.
 */
class ContributedProviderTest {
  static final String DESCRIPTOR =
      """
      id: stub-browser
      version: 1.0.0
      description: A browser provider that needs no browser.
      provider: Tests
      license: Apache-2.0
      requires: ">=2.0.0 & <3.0.0"
      pluginClass: stub.StubPlugin
      module: stub.StubModule
      dependencies: [browser]
      inject:
        required: []
        optional: []
      skills: []
      config:
        type: object
      """;

  static final String PROVIDER =
"""
      package stub;

      import dev.periscope.api.Cancellation;
      import dev.periscope.api.browser.*;
import dev.periscope.api.browser.spi.*;
      import java.nio.file.*;
      import java.util.*;

      public class StubProvider implements BrowserProvider {
        static void log(String line) {
          try {
            Files.writeString(Path.of(System.getProperty("stub.provider.log")), line + "\\n",
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }

        public String id() { return "stub"; }
        public Set<Capability> capabilities() {
          return Boolean.getBoolean("stub.enforces") ? Set.of(Capability.SCREENSHOT, Capability.NETWORK_POLICY)
              : Set.of(Capability.SCREENSHOT);
        }
        public boolean available() { return true; }
        public Optional<String> unavailableReason() { return Optional.empty(); }
        public void dispose() { log("disposed"); }

        public BrowserEnvironment open(OpenRequest request, Cancellation cancellation) {
          EnvironmentPolicy p = request.policy();
          log("opened " + request.sessionId() + " network=" + p.network().mode() + " " + p.network().allowCidrs()
              + " actionMs=" + p.timeouts().actionMs() + " viewport=" + p.viewport().width() + "x" + p.viewport().height()
              + " maxScreenshotBytes=" + p.screenshots().maxBytes());
          return new BrowserEnvironment() {
            String url = "about:blank";
            public ProviderObservation observe(ObservationBudget budget) {
              return new ProviderObservation(url, "Stub page", "served by the stub", 18,
                  List.of(new ProviderElement("0", "stub-button", "button", "button", "Stub button", false, null, 1)), 1);
            }
            public BrowserAction.Handler actions() {
              return new BrowserAction.Handler() {
                public void navigate(BrowserAction.Navigate a) { url = a.url(); }
                public void click(BrowserAction.Click a, ProviderElement target) { log("clicked " + target.name()); }
                public void hover(BrowserAction.Hover a, ProviderElement target) {}
                public void fill(BrowserAction.Fill a, ProviderElement target) {}
                public void press(BrowserAction.Press a, ProviderElement target) {}
                public void select(BrowserAction.Select a, ProviderElement target) {}
                public void check(BrowserAction.Check a, ProviderElement target) {}
                public void scroll(BrowserAction.Scroll a, ProviderElement target) {}
                public void waitFor(BrowserAction.Wait a, ProviderElement target) {}
                public void history(BrowserAction.History a) {}
              };
            }
            public Screenshot screenshot(boolean fullPage) { throw new IllegalStateException("no pixels here"); }
            public void abort() {}
            public void close() { log("closed"); }
          };
        }
      }
      """;

  @TempDir Path homeDir;
  @TempDir Path projectDir;
  @TempDir Path work;
  private HarnessHome home;
  private Path log;

  @BeforeEach
  void install() throws Exception {
    home = new HarnessHome(homeDir);
    InstalledProfiles.install(home, "p");
    Path stub =
        new TestPackage()
            .descriptor(DESCRIPTOR)
            .withoutSource("sample.SamplePlugin")
            .withoutSource("sample.SampleModule")
            .withoutSource("sample.SampleExtension")
            .source(
                "stub.StubPlugin",
                """
            package stub;
            public class StubPlugin extends org.pf4j.Plugin {
              @jakarta.inject.Inject public StubPlugin(org.pf4j.PluginWrapper wrapper) { super(wrapper); }
            }""")
            .source(
                "stub.StubModule",
                "package stub; public class StubModule extends com.google.inject.AbstractModule {}")
            .source("stub.StubProvider", PROVIDER)
            .source(
                "stub.StubContribution",
                """
            package stub;
            @org.pf4j.Extension
            public class StubContribution implements dev.periscope.api.browser.spi.BrowserProviderContribution {
              private static final StubProvider PROVIDER = new StubProvider();
              public dev.periscope.api.browser.spi.BrowserProvider provider() { return PROVIDER; }
            }""")
            .extensionsIndex("stub.StubContribution\n")
            .writeTo(work.resolve("stub-browser-1.0.0.zip"));
    PluginInstaller.add(home, "p", stub, false);
    log = work.resolve("stub.log");
    System.setProperty("stub.provider.log", log.toString());
  }

  @AfterEach
  void forget() {
    System.clearProperty("stub.provider.log");
    System.clearProperty("stub.enforces");
  }

  private List<String> logged() throws Exception {
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  static final String UNRESTRICTED_STUB =
      "plugins: {browser: {provider: stub, network: {mode: unrestricted}}}\n";

  @Test
  void
      aProviderThatDoesNotEnforceTheNetworkPolicyIsRefusedForAnAllowlistProjectAndAcceptedForAnUnrestrictedOne()
          throws Exception {
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            provider: stub
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
        """);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult refused =
          host.call(
              "agent",
              "browser_open",
              Map.of("url", "http://127.0.0.1:9/stub"),
              Cancellation.none());
      assertTrue(refused.isError(), refused.text());
      assertTrue(refused.text().contains("code=BROWSER_POLICY_DENIED"), refused.text());
      assertTrue(
          refused
              .text()
              .contains(
                  "browser provider \"stub\" does not enforce the network policy, and this "
                      + "project's network mode is allowlist"),
          refused.text());
      assertTrue(logged().isEmpty(), "the refused provider opened a browser: " + logged());
    }

    TestProjects.project(projectDir, UNRESTRICTED_STUB);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult opened =
          host.call(
              "agent",
              "browser_open",
              Map.of("url", "http://127.0.0.1:9/stub"),
              Cancellation.none());
      assertFalse(opened.isError(), opened.text());
      assertTrue(
          logged().stream()
              .anyMatch(l -> l.startsWith("opened ") && l.contains(" network=UNRESTRICTED ")),
          logged().toString());
      // Built without the actions of host API 2.3.0, the stub refuses them clearly.
      ToolResult typed =
          host.call("agent", "browser_type", Map.of("text", "hello"), Cancellation.none());
      assertTrue(typed.text().contains("code=BROWSER_CAPABILITY_UNSUPPORTED"), typed.text());
      assertTrue(typed.text().contains("does not perform type actions"), typed.text());
    }
  }

  @Test
  void aProviderThatEnforcesTheNetworkPolicyIsHandedTheProjectsPolicyWhenItOpens()
      throws Exception {
    System.setProperty("stub.enforces", "true");
    TestProjects.project(
        projectDir,
        """
        plugins:
          browser:
            provider: stub
            actionTimeoutMs: 4321
            maxScreenshotBytes: 54321
            network: {mode: allowlist, allowCidrs: ["127.0.0.1/32"]}
        """);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult opened =
          host.call(
              "agent",
              "browser_open",
              Map.of("url", "http://127.0.0.1:9/stub"),
              Cancellation.none());
      assertFalse(opened.isError(), opened.text());
      assertTrue(
          logged()
              .get(0)
              .endsWith(
                  " network=ALLOWLIST [127.0.0.1/32] actionMs=4321 viewport=1280x720"
                      + " maxScreenshotBytes=54321"),
          logged().toString());
    }
  }

  @Test
  void theProjectSelectsTheContributedProviderAndStoppingItsPluginClosesItsEnvironments()
      throws Exception {
    TestProjects.project(projectDir, UNRESTRICTED_STUB);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult opened =
          host.call(
              "agent",
              "browser_open",
              Map.of("url", "http://127.0.0.1:9/stub"),
              Cancellation.none());
      assertFalse(opened.isError(), opened.text());
      assertTrue(opened.text().contains("[e1] button — Stub button"), opened.text());
      assertTrue(logged().get(0).startsWith("opened session-"), logged().toString());

      host.stopPlugin("stub-browser");
      assertEquals(List.of("closed", "disposed"), logged().subList(1, logged().size()));
      ToolResult after = host.call("agent", "browser_observe", Map.of(), Cancellation.none());
      assertTrue(after.isError());
      assertTrue(after.text().contains("code=BROWSER_PROVIDER_CONFIGURED_MISSING"), after.text());
    }
  }

  @Test
  void stoppingTheBrowserPluginAlsoWithdrawsTheContributedProvider() throws Exception {
    TestProjects.project(projectDir, UNRESTRICTED_STUB);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      assertFalse(host.call("agent", "browser_observe", Map.of(), Cancellation.none()).isError());
      host.stopPlugin("browser");
      assertEquals(List.of("closed", "disposed"), logged().subList(1, logged().size()));
      assertTrue(host.tools().isEmpty(), "the stopped plugin's tools are still offered");
    }
  }

  @Test
  void twoAvailableProvidersWithoutAConfiguredOneAreAmbiguous() throws Exception {
    TestProjects.project(projectDir, TestProjects.LOOPBACK_ONLY);
    try (Host host = Host.start(home, "p", projectDir, Host.Options.defaults())) {
      ToolResult r = host.call("agent", "browser_observe", Map.of(), Cancellation.none());
      assertTrue(r.isError());
      assertTrue(
          r.text().contains("multiple browser providers are available: playwright, stub"),
          r.text());
      assertTrue(r.text().contains("code=BROWSER_PROVIDER_AMBIGUOUS"), r.text());
    }
    assertTrue(logged().isEmpty() || logged().equals(List.of("disposed")), logged().toString());
  }
}
