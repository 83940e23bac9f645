package dev.periscope.api.tool;

/**
 * Where a plugin contributes tools. Registering is an effect: closing the returned handle withdraws
 * the tool. Tools belong to a skill, which the host enables or disables per profile and project.
 */
public interface ToolRegistry {
  AutoCloseable register(String skill, Tool tool);

  /**
   * Calls the listener with the agent-session id each time the host ends an agent session, so the
   * plugin can release what it holds for it. Closing the handle stops the calls.
   */
  AutoCloseable onAgentSessionEnded(AgentSessionListener listener);

  /** Told when an agent session ends. */
  @FunctionalInterface
  interface AgentSessionListener {
    void agentSessionEnded(String agentSessionId);
  }
}
