import HTTPTypes
import PassStore

/// "Check for update" on a pass page: a POST with the session's form token that runs the same
/// update check as `passconduit update ID` for that one pass, in this user's library only, and
/// shows `update`'s sentence ("…: updated — Gate changed to B22.", "…: no newer version").
extension WebPages {
    func updateForm(_ hash: String) -> String {
        guard app.config.checkForUpdate != nil else { return "" }
        return """
        <form method="post" action="/passes/\(hash)/update" class="inline"><input type="hidden" name="csrf" value="\(csrf)"><button type="submit">Check for update</button></form>

        """
    }

    func checkForUpdate(_ hash: String) async throws -> Answer {
        let route = "/passes/{hash}/update"
        guard let check = app.config.checkForUpdate else {
            throw WebProblem(.notFound, route: route, title: "Not found", "There is no such page.")
        }
        let (pass, _) = try await stored(hash)
        let sentence = try await check(library, pass.id)
        // The pass may now be another version (another hash): the link names the current one.
        let current = try await library.pass(pass.id)
        var h = "<p class=\"note\" role=\"status\" dir=\"auto\">\(Self.e(sentence))</p>\n"
        if let current { h += "<p><a href=\"\(Self.page(current.id))\">Back to the pass</a></p>\n" }
        return Answer(route: route, response: page("Check for update", body: h))
    }
}
