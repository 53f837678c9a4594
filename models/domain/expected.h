#pragma once
// Errors are values: a function that can fail returns Expected<T>, and the caller decides
// what to show. Nothing in models/ throws across its interface.

#include <QString>

#include <optional>
#include <utility>
#include <variant>

namespace verity {

struct Error
{
    QString message;
};

template<typename T>
class [[nodiscard]] Expected
{
public:
    Expected(T value) : m_state(std::move(value)) {}
    Expected(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    T &value() { return std::get<T>(m_state); }
    const T &value() const { return std::get<T>(m_state); }
    T &operator*() { return value(); }
    const T &operator*() const { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }

    const Error &error() const { return std::get<Error>(m_state); }
    const QString &message() const { return error().message; }

private:
    std::variant<T, Error> m_state;
};

template<>
class [[nodiscard]] Expected<void>
{
public:
    Expected() = default;
    Expected(Error error) : m_error(std::move(error)) {}

    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return *m_error; }
    const QString &message() const { return m_error->message; }

private:
    std::optional<Error> m_error;
};

inline Error makeError(QString message)
{
    return Error{std::move(message)};
}

} // namespace verity
