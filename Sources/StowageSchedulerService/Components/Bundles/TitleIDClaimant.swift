/// A concern that holds title ids a bundle may not take (the catalogue fills its entries' ids itself). The import
/// asks every claimant, so it reads no other concern's state, and a new reason to keep an id is one claimant.
protocol TitleIDClaimant: AnyObject {
    /// Why `id` is this concern's, as the end of "title.id 'x' is …" (nil: not claimed).
    func claim(onTitleID id: String) -> String?
}
