DROP TRIGGER agent_responses_message_insert ON chat_messages;
CREATE TRIGGER agent_responses_message_insert AFTER INSERT ON chat_messages
    FOR EACH ROW WHEN (NEW.role = 'agent') EXECUTE FUNCTION agent_responses_on_message();
DROP FUNCTION agent_responses_on_agent_message();
