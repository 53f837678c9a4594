#pragma once
// Which registry reads a conversation's calls. Verity ships profiles (its own marketplace
// tools, and the τ-bench retail, airline and telecom domains); the one that knows most of the
// tools a conversation calls reads it, unless the user forced one.

#include "toolregistry.h"

#include <QList>
#include <QString>

namespace verity {

struct NamedRegistry
{
    QString name; // "default", "tau-retail", ..., or a file's name
    ToolRegistry registry;
};

// The profiles compiled into Verity, "default" first.
QStringList builtInProfileNames();
Expected<ToolRegistry> builtInProfile(const QString &name);

class RegistrySelection
{
public:
    RegistrySelection() = default;
    // Chooses per conversation among `profiles`; the first is the fallback.
    static RegistrySelection automatic(QList<NamedRegistry> profiles);
    static RegistrySelection forced(NamedRegistry registry);

    bool isForced() const { return m_forced; }
    // The profile that knows most of `tools`; ties go to `preferred` (the file's choice so far),
    // then to the first profile.
    const NamedRegistry &choose(const QStringList &tools, const QString &preferred = QString()) const;
    // A ticket's profile by name, for reading its calls again; the first when the name is gone.
    const NamedRegistry &byName(const QString &name) const;
    const NamedRegistry &primary() const { return m_profiles.first(); }
    bool has(const QString &name) const;

private:
    QList<NamedRegistry> m_profiles{NamedRegistry{QStringLiteral("default"), ToolRegistry()}};
    bool m_forced = false;
};

} // namespace verity
