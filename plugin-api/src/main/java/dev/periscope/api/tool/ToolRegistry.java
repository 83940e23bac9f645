package dev.periscope.api.tool;

/**
 * Where a plugin contributes tools. Registering is an effect: closing the returned handle withdraws
 * the tool. Each tool belongs to a skill its plugin declares in plugin.yaml (a tool under a skill
 * no plugin declares is offered to no one). An agent skill's tools are offered to the model while
 * the host has the skill enabled for the profile and project; an operator skill's tools are never
 * offered to a model, and the host calls them for its operator with the agent session id {@code
 * operator} (see {@link SkillDeclaration.Audience}).
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
