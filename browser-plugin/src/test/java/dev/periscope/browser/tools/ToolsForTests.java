package dev.periscope.browser.tools;

import dev.periscope.api.browser.BrowserRuntime;
import dev.periscope.api.tool.Tool;
import dev.periscope.browser.BrowserSettings;
import dev.periscope.browser.runtime.CredentialChannel;
import dev.periscope.browser.runtime.SessionDirectory;
import java.util.List;
import java.util.Optional;

/**
 * The browser tools over a given runtime, for tests in other packages; agent sessions map to fixed
 * ids.
 */
public final class ToolsForTests {
  private static BrowserTools current;

  private ToolsForTests() {}

  public static List<Tool> tools(BrowserRuntime runtime, BrowserSettings settings) {
    return tools(runtime, settings, CredentialChannel.none());
  }

  /** With the credential channel the runtime was given. */
  public static List<Tool> tools(
      BrowserRuntime runtime, BrowserSettings settings, CredentialChannel credentials) {
    return tools(runtime, settings, credentials, Optional.empty());
  }

  /** With the credential channel the runtime was given and an attachment store. */
  public static List<Tool> tools(
      BrowserRuntime runtime,
      BrowserSettings settings,
      CredentialChannel credentials,
      Optional<dev.periscope.api.host.AttachmentService> attachments) {
    current =
        new BrowserTools(
            runtime,
            SessionDirectory.inMemory(),
            settings.tools(),
            attachments,
            credentials,
            false);
    return current.tools();
  }

  /** {@code browser_evaluate} of the tools made last. */
  public static Tool scriptTool() {
    return current.scriptTool();
  }

  /** Ends an agent session as a host does: its browser session closes. */
  public static void endSession(String agentSessionId) {
    current.agentSessionEnded(agentSessionId);
  }

  public static void close() {
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
