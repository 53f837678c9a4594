#pragma once
// Root may write any folder, so a test of what a user may not write sees nothing under root (as
// CI runs). While one of these lives, the process's real and effective ids are the user
// `nobody`'s, so every check (open, access, as QFileInfo::isWritable asks) is another user's;
// root is kept as the saved id and taken back at the end. Not root: nothing changes. Meant for a
// few lines of a test that runs no threads of its own meanwhile.

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

namespace verity::test {

class AsNobody
{
public:
    AsNobody()
    {
        if (::geteuid() != 0)
            return;
        const passwd *user = ::getpwnam("nobody");
        const group *users = ::getgrnam("nogroup");
        if (!user)
            return;
        const gid_t gid = users ? users->gr_gid : user->pw_gid;
        // The group first, while the process may still change it; -1 keeps the saved ids (root).
        if (::setresgid(gid, gid, gid_t(-1)) != 0)
            return;
        if (::setresuid(user->pw_uid, user->pw_uid, uid_t(-1)) != 0) {
            restoreGroup();
            return;
        }
        m_dropped = true;
    }
    ~AsNobody()
    {
        if (!m_dropped)
            return;
        [[maybe_unused]] const int back = ::setresuid(0, 0, uid_t(-1));
        restoreGroup();
    }
    AsNobody(const AsNobody &) = delete;
    AsNobody &operator=(const AsNobody &) = delete;

    // Whether this runs as another user than root now: not root to begin with, or changed.
    bool works() const { return ::geteuid() != 0; }

private:
    static void restoreGroup() { [[maybe_unused]] const int back = ::setresgid(0, 0, gid_t(-1)); }

    bool m_dropped = false;
};

} // namespace verity::test
