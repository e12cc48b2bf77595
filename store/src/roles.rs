//! Roles on a bot and what each may do (spec 1 §6). The owner is not a stored member role:
//! it is whoever owns the bot.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Admin,
    Editor,
    Viewer,
    Agent,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Editor => "editor",
            Role::Viewer => "viewer",
            Role::Agent => "agent",
        }
    }

    /// A role a member can be given (the owner is never invited).
    pub fn parse_member(s: &str) -> Option<Role> {
        match s {
            "admin" => Some(Role::Admin),
            "editor" => Some(Role::Editor),
            "viewer" => Some(Role::Viewer),
            "agent" => Some(Role::Agent),
            _ => None,
        }
    }

    /// Bot configuration, customization and training data.
    pub fn can_edit_bot(self) -> bool {
        matches!(self, Role::Owner | Role::Admin | Role::Editor)
    }

    /// Inviting, changing and removing team members.
    pub fn can_manage_team(self) -> bool {
        matches!(self, Role::Owner | Role::Admin)
    }

    /// Taking, answering and resolving live support sessions.
    pub fn can_handle_support(self) -> bool {
        matches!(self, Role::Owner | Role::Admin | Role::Agent)
    }

    /// New Lead and the Edit form (spec 1 §6: owner and admin do everything, editor edits).
    pub fn can_edit_leads(self) -> bool {
        matches!(self, Role::Owner | Role::Admin | Role::Editor)
    }

    /// The inline status select: editors, and agents following up the people they talked to.
    pub fn can_set_lead_status(self) -> bool {
        matches!(self, Role::Owner | Role::Admin | Role::Editor | Role::Agent)
    }

    /// Deleting a lead loses the person's details for good: owner and admin only.
    pub fn can_delete_leads(self) -> bool {
        matches!(self, Role::Owner | Role::Admin)
    }

    pub fn can_delete_bot(self) -> bool {
        self == Role::Owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_follow_the_roles_section() {
        assert!(Role::Owner.can_delete_bot() && !Role::Admin.can_delete_bot());
        assert!(Role::Editor.can_edit_bot() && !Role::Viewer.can_edit_bot() && !Role::Agent.can_edit_bot());
        assert!(Role::Agent.can_handle_support() && !Role::Viewer.can_handle_support());
        assert!(!Role::Editor.can_handle_support());
        assert!(Role::Admin.can_manage_team() && !Role::Editor.can_manage_team());
        assert!(Role::Editor.can_edit_leads() && !Role::Agent.can_edit_leads() && !Role::Viewer.can_edit_leads());
        assert!(Role::Agent.can_set_lead_status() && !Role::Viewer.can_set_lead_status());
        assert!(Role::Admin.can_delete_leads() && !Role::Editor.can_delete_leads());
        assert_eq!(Role::parse_member("owner"), None);
        assert_eq!(Role::parse_member("agent"), Some(Role::Agent));
    }
}
