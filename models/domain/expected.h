#pragma once
// Errors are values: a function that can fail returns Expected<T>, and the caller decides
// what to show. Nothing in models/ throws across its interface.
//
// An Error carries a code, which a caller may branch on, and a message, which it only shows:
// no caller compares message text. Codes are enums, one per area, carried as a
// std::error_code (so "the provider's timeout" and "the store's busy" never collide), and
// compared directly: `if (error.code == ProviderErrc::Cancelled)`.

#include <QString>
#include <QtGlobal>

#include <optional>
#include <system_error>
#include <utility>
#include <variant>

namespace verity {

// Failures no caller tells apart: the message says what happened.
enum class Errc {
    Failed = 1,
};

// Reading input a person or another program gave: a file, a field, an argument.
enum class InputErrc {
    Invalid = 1, // present but not what was expected
    Missing, // not there at all (no such file, no such ticket)
    Unreadable, // there, but could not be read or written (permissions, disk)
};

// Verity's stored data.
enum class StoreErrc {
    Unwritable = 1, // this user may not change it
    NewerSchema, // made by a newer Verity
    OlderSchema, // needs an upgrade before it can be read only
    NotADatabase, // the file is something else
    Unreachable, // the server went away or cannot be reached now: it may answer later
    RefusedByRole, // the database's rules refuse this to the connected role
    Conflict, // the server ended the transaction to break a deadlock or a conflict: try it again
    ClaimedByOther, // another person's claim holds the escalation: only they may act on it now
};

// The authoritative systems (payment provider, courier, messaging).
enum class ProviderErrc {
    Unreachable = 1, // nothing answered, or not in time
    Refused, // it answered no (4xx): the key, the URL, the request
    BadAnswer, // it answered something that cannot be read
    Cancelled, // the person stopped it
};

const std::error_category &errcCategory();
const std::error_category &inputErrcCategory();
const std::error_category &storeErrcCategory();
const std::error_category &providerErrcCategory();

inline std::error_code make_error_code(Errc e)
{
    return {int(e), errcCategory()};
}
inline std::error_code make_error_code(InputErrc e)
{
    return {int(e), inputErrcCategory()};
}
inline std::error_code make_error_code(StoreErrc e)
{
    return {int(e), storeErrcCategory()};
}
inline std::error_code make_error_code(ProviderErrc e)
{
    return {int(e), providerErrcCategory()};
}

} // namespace verity

template<>
struct std::is_error_code_enum<verity::Errc> : std::true_type
{};
template<>
struct std::is_error_code_enum<verity::InputErrc> : std::true_type
{};
template<>
struct std::is_error_code_enum<verity::StoreErrc> : std::true_type
{};
template<>
struct std::is_error_code_enum<verity::ProviderErrc> : std::true_type
{};

namespace verity {

struct Error
{
    std::error_code code = Errc::Failed;
    QString message;
};

inline Error makeError(QString message)
{
    return Error{Errc::Failed, std::move(message)};
}

template<typename Code>
Error makeError(Code code, QString message)
{
    return Error{code, std::move(message)};
}

// The same error said of a place ("file.sqlite: " + what went wrong): the code stays.
inline Error inContext(const QString &where, const Error &error)
{
    return Error{error.code, where + QStringLiteral(": ") + error.message};
}

template<typename T>
class [[nodiscard]] Expected
{
public:
    Expected(T value)
        : m_state(std::move(value))
    {}
    Expected(Error error)
        : m_state(std::move(error))
    {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    // Reading a value that is not there, or an error that is not there, is a bug in the caller.
    T &value()
    {
        Q_ASSERT_X(ok(), "Expected::value", "the call failed: check ok() first");
        return std::get<T>(m_state);
    }
    const T &value() const
    {
        Q_ASSERT_X(ok(), "Expected::value", "the call failed: check ok() first");
        return std::get<T>(m_state);
    }
    T &operator*() { return value(); }
    const T &operator*() const { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const Error &error() const
    {
        Q_ASSERT_X(!ok(), "Expected::error", "the call succeeded: there is no error");
        return std::get<Error>(m_state);
    }
    const QString &message() const { return error().message; }
    std::error_code code() const { return error().code; }

private:
    std::variant<T, Error> m_state;
};

template<>
class [[nodiscard]] Expected<void>
{
public:
    Expected() = default;
    Expected(Error error)
        : m_error(std::move(error))
    {}

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error &error() const
    {
        Q_ASSERT_X(!ok(), "Expected::error", "the call succeeded: there is no error");
        return *m_error;
    }
    const QString &message() const { return error().message; }
    std::error_code code() const { return error().code; }

private:
    std::optional<Error> m_error;
};

} // namespace verity
